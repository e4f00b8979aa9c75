# Session 27 call 1 (got an H200): (a) the decode cells with the paged caches' pages in four orders on
# HEAD (is the paged cells' loss the scatter at 2 MiB granularity?); (b) HEAD vs "pf" (paged
# key-order walks prefetch a later refill's pages into L2), three rounds in alternating processes.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in head pf; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
PYTHONPATH=/tmp/ab/head/bundle/runfiles/_main/py timeout 200 python3 $S/decode_orders.py --tag orders --rounds 2 2>&1 | grep -v Warning > $OUT/decode_orders.log
cat $OUT/decode_orders.log
echo "orders done at $SECONDS s"
for r in 1 2 3; do
  for b in head pf; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --orders random,random_key 2>&1 | grep -v Warning >> $OUT/decode_ab_pf.log
  done
done
echo "A/B done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_pf.log head pf
