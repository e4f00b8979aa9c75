# Session 31 call 2 (H200): the split combine with one round trip per 16 splits (running max)
# instead of a max pass plus batches of 8. (1) gpu_h200_kvcache on the change; (2) issue 16's d128
# decode cells (contiguous, pages 16 / 256 in the benchmark's random order), head vs comb, three
# rounds in alternating processes (session 27's decode_orders.py, medians by ab_medians.py).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s31 SUITES="gpu_h200_kvcache:300" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
echo "suite done at $SECONDS s"
for v in head comb; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
L=$OUT/call2_decode_ab.log
for r in 1 2 3; do for v in head comb; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 $S/decode_orders.py --tag "$v-$r" --pages 16,256 --orders random 2>&1 | grep -v Warning >> $L
  echo "$v-$r at $SECONDS s"
done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/ab_medians.py $L head comb
