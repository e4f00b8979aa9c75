# Session 28 call 5 (H200, a plain call): the final TMA build ("fin") against HEAD ("head") on an
# H200: the KV-cache suite on fin, then two rounds in alternating processes of issue 16's d128 rows
# and the B1 rows at d64 (pages of 16 / 32 / 64 / 256 random, as the rule picks and forced to
# key / address order).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py (its _addr orders added in session 28), ab_medians.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for b in head fin; do mkdir -p /tmp/ab/$b && tar xJf .carry_s28/$b.tar.xz -C /tmp/ab/$b; done
CARRY=.carry_s28/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache_fin.log
echo "suite done at $SECONDS s"
for r in 1 2; do
  for b in head fin; do
    P=/tmp/ab/$b/bundle/runfiles/_main/py
    PYTHONPATH=$P timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,32,64,256 --orders random,random_key,random_addr 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    PYTHONPATH=$P timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,32,64,256 --orders random,random_key,random_addr 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/decode_ab.log head fin
echo "done at $SECONDS s"
