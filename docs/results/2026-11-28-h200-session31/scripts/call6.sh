# Session 31 call 6 (H200): softcap's tanh inside the softmax step on blocks without a mask
# (TanhScoreTransform: the row max's chain on the raw scores beside the tanh stream, one more
# tanh per row half for the max). Suites on the change (forward, features, edge), then
# kernel-only A/B head vs tanh in alternating processes (2 rounds, bf16 + fp16).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s31 SUITES="gpu_h200:250 gpu_h200_features:250 gpu_h200_edge:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
echo "suites done at $SECONDS s"
for v in head tanh; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head tanh; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes fwd --seqlens 1024,4096,16384 --rep 30 >> $OUT/call6_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96 \
    --passes fwd --nofeatures --seqlens 1024,16384 --rep 30 >> $OUT/call6_ab.txt 2>&1
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call6_ab.txt head tanh
echo "done at $SECONDS s"
