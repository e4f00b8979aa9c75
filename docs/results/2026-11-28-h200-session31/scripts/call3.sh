# Session 31 call 3 (H200): head dim 192's forward tile at 64 keys a step instead of 80 (less
# causal padding: at S1024 causal 80-key blocks compute 19% more scores than needed, 64-key ones
# 12%). Kernel-only A/B head vs n64 in alternating processes (2 rounds, bf16 + fp16), then the
# forward suite on n64.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in head n64; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head n64; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 192,192:128 \
    --passes fwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/call3_ab.txt 2>&1
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call3_ab.txt head n64
echo "ab done at $SECONDS s"
CARRY=.carry_s31 SUITES="gpu_h200:300" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
echo "done at $SECONDS s"
