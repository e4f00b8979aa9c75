# Prepared, not run (no device time left in session 49): decode.py's --split_ab with --orders
# (prepared/decode_split_ab_orders.diff: the paged cells also in each forced page order, as
# scripts/paged_splits.py timed them in calls 7-9), on HEAD's kernels.
set -u
OUT=${OUT:?}
mkdir -p /tmp/fc && tar xzf .carry_s49/bundle/gpu_h200_bundle.tar.gz -C /tmp/fc
PYTHONPATH=/tmp/fc/bundle/runfiles/_main/py timeout 200 python3 tools/bench/decode.py --split_ab --orders key,address \
  --ab_rounds 2 --out_dir /tmp/sab 2>&1 | grep -v Warning | tee $OUT/split_ab_orders.log
cp /tmp/sab/decode_split_ab.json $OUT/ 2>/dev/null; echo "done at $SECONDS s"
