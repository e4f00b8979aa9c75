# Session 24 (H100): the packed-batch long-rows rule (head dim 64): each probe batch with its tile
# picked by shape beside both forced tiles; then the forward and feature suites on that build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=/tmp/rule; mkdir -p $R && tar xzf .carry/rule_attention_bundle.tar.gz -C $R
PYTHONPATH=$R/bundle/runfiles/_main/py timeout 300 python3 docs/results/2026-11-27-h100-session24/scripts/packed_d64_tiles.py --by_shape \
  > $OUT/packed_rule.log 2>&1
echo "probe rc=$? at $SECONDS s"; cat $OUT/packed_rule.log
left=$((560 - SECONDS - 20))
CARRY=.carry SUITES="gpu_h100:$left gpu_h100_features:$left gpu_h100_paged_forward:$left" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
echo "done at $SECONDS s"
