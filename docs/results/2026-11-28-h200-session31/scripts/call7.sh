# Session 31 call 7 (H200): the final build (7ae8ec1: the split combine of 1d43a34 and softcap's
# tanh inside the d128 softmax step). Suites (forward, features, edge, kvcache), then the d128
# kernel-only A/B head vs final in alternating processes (2 rounds, bf16 + fp16).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s31 SUITES="gpu_h200:250 gpu_h200_features:250 gpu_h200_edge:250 gpu_h200_kvcache:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "suites done at $SECONDS s"
for v in head final; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head final; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 128 \
    --passes fwd --seqlens 1024,4096,16384 --rep 30 >> $OUT/call7_ab.txt 2>&1
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call7_ab.txt head final
echo "done at $SECONDS s"
