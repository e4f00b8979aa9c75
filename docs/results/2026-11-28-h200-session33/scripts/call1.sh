# Session 33 call 1 (H200): session 32's prepared d128 packed-softcap backward with the mask on tanh
# in its own pass (prepared/d128_softcap_mask_on_tanh.diff of session 32, `masktanh`) against HEAD
# (`variant`, whose _C.so is bit-identical to 0488999's). First the float64 feature oracle's d128
# softcap combinations on masktanh, then a backward kernel-only A/B in alternating processes (2
# rounds, bf16 + fp16, d128, plain and softcap 30), then the backward and feature suites on masktanh.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in variant masktanh; do mkdir -p /tmp/ab/$v && tar xJf .carry_s33/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/masktanh/py:tests timeout 60 python3 -m pytest -q -x -p no:cacheprovider tests/gpu_features_test.py \
  -k "combinations_match_float64 and softcap and 128" 2>&1 | tail -3
echo "oracle done at $SECONDS s"
for r in 1 2; do for dt in bf16 fp16; do for v in variant masktanh; do
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 128 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/call1_ab.txt 2>&1
  echo "$r $dt $v at $SECONDS s"
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call1_ab.txt variant masktanh
echo "A/B done at $SECONDS s"
CARRY=.carry_s33 SUITES="gpu_h200_bwd:240 gpu_h200_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "done at $SECONDS s"
