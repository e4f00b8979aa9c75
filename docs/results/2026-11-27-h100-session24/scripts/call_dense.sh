# Session 24 (H100): head dim 64's non-causal long-rows threshold at 1024 rows, by shape; then the
# forward suite on that build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=/tmp/rule; mkdir -p $R && tar xzf .carry/rule_attention_bundle.tar.gz -C $R
PYTHONPATH=$R/bundle/runfiles/_main/py timeout 120 python3 docs/results/2026-11-27-h100-session24/scripts/dense_full_pick.py \
  > $OUT/dense_full_pick.log 2>&1
echo "probe rc=$? at $SECONDS s"; cat $OUT/dense_full_pick.log
CARRY=.carry SUITES="gpu_h100:200" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
echo "done at $SECONDS s"
