# Session 34 call 7 (H200): the per-instantiation sanitizer sweep (tests/gpu_sanitizer_test.py:
# every runnable instantiation x its four feature variants, forward and backward) on the final
# build's bundle (720aed3: the d64 causal packed-softcap kernel changed), all four tools at once:
# racecheck in RSHARDS interleaved parts, memcheck + initcheck + synccheck in MSHARDS, every part
# its own bundle run.py process, all in parallel on the one GPU (session 33's call2.sh, its carry
# folder and part counts changed).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
RSHARDS=${RSHARDS:-8}; MSHARDS=${MSHARDS:-4}; LIMIT=${LIMIT:-330}
W=/tmp/san; mkdir -p $W && tar xzf .carry_s34/gpu_h200_bundle.tar.gz -C $W
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
