# Session 35, device call 11 (H200): pack-GQA in the sm90a forward (a GQA group's query heads as the
# rows of one tile; kernels/hopper/fwd_kernel.cuh). Carry .carry_s35: head.tar.xz (e4c304a's py
# tree), pack.tar.xz and pack_bundle/gpu_h200_bundle.tar.gz (this build's).
# 1. pack_gqa_check.py: packed against unpacked in the same build and both against float64;
# 2. the forward, feature, edge-input, fuzz and Hugging Face suites on this build (parallel; packing on by default, so
#    every dense GQA case without a left window runs packed);
# 3. pack_gqa_ab.py: GQA rows packed vs unpacked in one process (bf16, then fp16 at d64 / d128 G4);
# 4. MHA forward rows (no packing; the kernel's row -> position code is new there too): ab_kernels
#    head vs pack, alternating processes, 2 rounds, bf16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=docs/results/2026-11-28-h200-session35/scripts
C=.carry_s35
t0=$(date +%s)
for v in head pack; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/pack/py timeout 120 python3 $R/pack_gqa_check.py > $OUT/check.txt 2>&1
echo "check rc=$? at $(( $(date +%s) - t0 )) s"; grep -c "^OK" $OUT/check.txt; grep -v "^OK" $OUT/check.txt | tail -12
CARRY=$C/pack_bundle SUITES="gpu_h200:200 gpu_h200_features:200 gpu_h200_edge:200 gpu_h200_fuzz:200 gpu_h200_hf:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "suites done at $(( $(date +%s) - t0 )) s"
PYTHONPATH=/tmp/ab/pack/py timeout 150 python3 $R/pack_gqa_ab.py --dtype bf16 --groups 4,8 > $OUT/ab_gqa.txt 2>&1
PYTHONPATH=/tmp/ab/pack/py timeout 60 python3 $R/pack_gqa_ab.py --dtype fp16 --groups 4 --seqlens 1024,4096 >> $OUT/ab_gqa.txt 2>&1
cat $OUT/ab_gqa.txt; echo "gqa ab done at $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in head pack; do
  [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "time guard"; break 2; }
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,128 \
    --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab_mha.txt 2>&1
done; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab_mha.txt head pack
echo "all done at $(( $(date +%s) - t0 )) s"
# One archive back (the device tool returns few files).
tar czf /tmp/call11.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call11.tgz $OUT/
