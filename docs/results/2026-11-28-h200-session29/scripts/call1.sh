# Session 29 call 1: (1) the KV-cache suite on "obc" (session 28's prepared one-box-count change:
# the refill's box count stated once for the issued boxes and the barrier's bytes);
# (2) two rounds in alternating processes of HEAD, obc and "lock" (obc + session 28's prepared
# cluster lock-step: the kv-head CTAs of a split in clusters of 4, a cluster barrier a step) over
# issue 16's d128 rows, pages 16 / 256 in random and in physical order, and contiguous.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py, ab_medians.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for b in head obc lock; do mkdir -p /tmp/ab/$b && tar xJf .carry_s29/$b.tar.xz -C /tmp/ab/$b; done
[ -n "${SKIP_SUITE:-}" ] || CARRY=.carry_s29/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
[ -n "${SKIP_SUITE:-}" ] || cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/call1_${KIND}_gpu_kvcache_obc.log
echo "suite done at $SECONDS s"
for r in 1 2; do
  for b in head obc lock; do
    P=/tmp/ab/$b/py
    PYTHONPATH=$P timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,256 --orders random,inorder 2>&1 | grep -v Warning >> $OUT/call1_${KIND}_ab.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/call1_${KIND}_ab.log head obc
python3 $S/ab_medians.py $OUT/call1_${KIND}_ab.log obc lock
echo "done at $SECONDS s"
