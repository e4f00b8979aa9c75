# Session 36 call 5 (H200): the per-instantiation sanitizer sweep (tests/gpu_sanitizer_test.py:
# every runnable instantiation x its five feature variants, forward and backward; the fifth, GQA
# without a window, is new: it runs the pack-GQA d64 kernels) on this session's bundle (pack-GQA
# landed, its epilogue moved to fwd_epilogue.cuh), all four tools at once:
# racecheck in RSHARDS interleaved parts, memcheck + initcheck + synccheck in MSHARDS, every part
# its own bundle run.py process, all in parallel on the one GPU (session 34's call7.sh, its carry
# folder, part counts and limit changed).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
RSHARDS=${RSHARDS:-10}; MSHARDS=${MSHARDS:-5}; LIMIT=${LIMIT:-400}
# First the forward and feature suites on this bundle (the epilogue move reordered two pairs of
# uniform-register moves in the 12 packed kernels' SASS; the other 550 kernels are identical).
CARRY=.carry_s36b SUITES="gpu_h200:200 gpu_h200_features:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
echo "suites done at $SECONDS s"
W=/tmp/san; mkdir -p $W && tar xzf .carry_s36b/gpu_h200_bundle.tar.gz -C $W
part() {  # tool-set, shard, shards
  local tag=${1//,/_}_$2
  (cd $W && FLASHCORE_SANITIZER_TOOLS=$1 FLASHCORE_SANITIZER_SHARD=$2/$3 FLASHCORE_SANITIZER_TIMEOUT_S=$LIMIT \
     timeout $((LIMIT + 20)) python3 bundle/run.py --only gpu_h200_sanitizer --timeout $((LIMIT + 10)) --out $W/out_$tag \
     > $W/run_$tag.log 2>&1; echo "== shard $2/$3 $1 rc=$? at $SECONDS s")
}
for i in $(seq 0 $((RSHARDS - 1))); do part racecheck $i $RSHARDS & done
for i in $(seq 0 $((MSHARDS - 1))); do part memcheck,initcheck,synccheck $i $MSHARDS & done
wait
for t in $W/out_*/tests/gpu_h200_sanitizer/test.log; do
  echo "-- $t"; grep -hE "sweeping|this run:|passed|failed|RACECHECK SUMMARY|ERROR SUMMARY|did not finish" $t | cut -c1-200 | sort | uniq -c | tail -8
done
mkdir -p $OUT/san && for d in $W/out_*; do cp $d/tests/gpu_h200_sanitizer/test.log $OUT/san/$(basename $d).log 2>/dev/null; done
echo "done at $SECONDS s"
tar czf /tmp/san.tgz -C $OUT san suites && rm -rf $OUT/san $OUT/suites && mv /tmp/san.tgz $OUT/
