# Session 32 call 3 (H200): call 2's packed softcap backward with its exp2 + pack loop in two copies
# (with the mask tested inside, for blocks that need it; without, for the others), backward-only
# A/B head vs split in alternating processes (2 rounds, bf16 + fp16, plain and softcap 30), then
# the backward and feature oracle suites on the split build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py (the session 32 run used an identical copy)
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in head split; do mkdir -p /tmp/ab/$v && tar xJf .carry_s32/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head split; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/call3_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96,192,256 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 4096 --rep 30 >> $OUT/call3_ab.txt 2>&1
  echo "$r $dt $v at $SECONDS s"
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call3_ab.txt head split
echo "A/B done at $SECONDS s"
CARRY=.carry_s32 SUITES="gpu_h200_bwd:240 gpu_h200_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "done at $SECONDS s"
