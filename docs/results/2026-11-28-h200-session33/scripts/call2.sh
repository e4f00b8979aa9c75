# Session 33 call 2 (H200): the per-instantiation sanitizer sweep (tests/gpu_sanitizer_test.py:
# every runnable instantiation x its feature variants, forward and backward) on the carried
# bundle -- in call 2 HEAD 6b3d5b1's (3 variants; the second, with a window, runs the masked sm90a
# packed-softcap kernels), in call 7 (call7.sh) the final build's with a fourth variant -- all four
# tools at once: racecheck in RSHARDS interleaved parts, memcheck + initcheck + synccheck in
# MSHARDS, every part its own bundle run.py process, all in parallel on the one GPU.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
RSHARDS=${RSHARDS:-6}; MSHARDS=${MSHARDS:-3}; LIMIT=${LIMIT:-480}
W=/tmp/san; mkdir -p $W && tar xzf .carry_s33/gpu_h200_bundle.tar.gz -C $W
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
