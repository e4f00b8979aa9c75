# Session 33 call 3 (H200): the packed-softcap backward with the mask applied to the packed P^T /
# W^T pairs after one exp2 loop (`pairs`: head dim 64 full, 96 causal and full, 128 full; d64
# causal and d128 causal as HEAD) against HEAD 6b3d5b1 (`head`). The float64 feature oracle's
# softcap combinations on pairs first, then a backward kernel-only A/B in alternating processes
# (2 rounds, bf16 + fp16, plain and softcap 30), then the backward and feature suites on pairs.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in head pairs; do mkdir -p /tmp/ab/$v && tar xJf .carry_s33/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/pairs/py:tests timeout 90 python3 -m pytest -q -x -p no:cacheprovider tests/gpu_features_test.py \
  -k "combinations_match_float64 and softcap" 2>&1 | tail -3
echo "oracle done at $SECONDS s"
for r in 1 2; do for dt in bf16 fp16; do for v in head pairs; do
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/call3_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 4096 --rep 30 >> $OUT/call3_ab.txt 2>&1
  echo "$r $dt $v at $SECONDS s"
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call3_ab.txt head pairs
echo "A/B done at $SECONDS s"
CARRY=.carry_s33 SUITES="gpu_h200_bwd:240 gpu_h200_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "done at $SECONDS s"
