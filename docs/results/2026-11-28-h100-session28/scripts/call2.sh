# Session 28 call 2 (H100 asked for): the TMA paged walk ("tma": sm90a paged decode kernels load K
# and V with the TMA) against HEAD ("head"). First the KV-cache suite on tma (correctness), then
# two rounds in alternating processes of issue 16's d128 rows (contiguous: unchanged kernels, the
# control; pages of 16 / 64 / 256, random tables) and the B1 rows at d64.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for b in head tma; do mkdir -p /tmp/ab/$b && tar xJf .carry_s28/$b.tar.xz -C /tmp/ab/$b; done
CARRY=.carry_s28/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache_tma.log
echo "suite done at $SECONDS s"
for r in 1 2; do
  for b in head tma; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,64,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_tma.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,64,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_tma.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/decode_ab_tma.log head tma
echo "done at $SECONDS s"
