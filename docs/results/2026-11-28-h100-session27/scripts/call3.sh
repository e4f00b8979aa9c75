# Session 27 call 3: HEAD vs "plan" (the refill's source addresses computed before the step's wait
# and barrier, 16-row decode blocks), three rounds in alternating processes: issue 16's six d128
# rows, contiguous / page 16 / page 256 (random block tables); the B1 rows also with the pages in
# physical order and forced key order; then d64.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in head plan; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2 3; do
  for b in head plan; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_plan.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --contig 0 --pages 16 --orders inorder,inorder_key,random_key 2>&1 | grep -v Warning >> $OUT/decode_ab_plan.log
  done
done
echo "A/B d128 done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_plan.log head plan
for r in 1 2 3; do
  for b in head plan; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --dims 64 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_plan_d64.log
  done
done
echo "A/B d64 done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_plan_d64.log head plan
