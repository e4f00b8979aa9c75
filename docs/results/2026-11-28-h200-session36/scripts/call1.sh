# Session 36, device call 1 (H200): pack-GQA's d64 kernel variant (session 35's
# prepared/pack_gqa_forward_d64_kernel.diff, applied) before landing. Carry .carry_s36:
# bundle/gpu_h200_bundle.tar.gz (this build), pack.tar.xz (its py tree), head.tar.xz (HEAD's py
# tree; kernels unchanged since e4c304a).
# 1. the suites, in parallel: forward, backward, features (with this session's pack-GQA tests),
#    edge, fuzz, Hugging Face, paged forward, KV cache;
# 2. GQA forward rows (d64, groups 4 / 8) HEAD vs this build, alternating processes, 2 rounds, bf16;
#    fp16 1 round;
# 3. MHA forward rows (never packed: SASS-identical kernels) HEAD vs this build, 2 rounds, bf16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s36
t0=$(date +%s)
for v in head pack; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
CARRY=$C/bundle SUITES="gpu_h200:240 gpu_h200_bwd:280 gpu_h200_features:280 gpu_h200_edge:200 gpu_h200_fuzz:200 gpu_h200_hf:200 gpu_h200_paged_forward:240 gpu_h200_kvcache:240" \
  OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -30
echo "suites done at $(( $(date +%s) - t0 )) s"
ab() {  # label dtype extra-args...
  local v=$1 lab=$2 dt=$3; shift 3
  [ $(( $(date +%s) - t0 )) -gt 530 ] && { echo "time guard: skipped $lab"; return; }
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label $lab --dtype $dt --passes fwd \
    --nofeatures --rep 30 "$@" >> $OUT/ab.txt 2>&1
}
for r in 1 2; do for v in head pack; do ab $v ${v}_r$r bf16 --dims 64 --groups 4,8 --seqlens 1024,4096,16384; done; done
for v in head pack; do ab $v ${v}_r3 fp16 --dims 64 --groups 4,8 --seqlens 1024,4096; done
echo "gqa ab done at $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in head pack; do ab $v ${v}_r$((r + 3)) bf16 --dims 64,128 --seqlens 1024,4096,16384; done; done
# best of the rounds per row (labels BUILD_rN: GQA bf16 r1-2, fp16 r3, MHA r4-5)
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head pack
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
