# Call 3 (session 49): the whole four-tool sanitizer sweep (tests/gpu_sanitizer_test.py, every
# instantiation x feature variant) on HEAD's kernels (9a5a4d2), last complete on session 24's
# kernels (H100). In parallel parts (FLASHCORE_SANITIZER_TOOLS / _SHARD, as session 24's
# call_san.sh): racecheck in RACE_SHARDS parts and memcheck + initcheck + synccheck in MIS_SHARDS
# parts, one bundle run.py process each, all at once.
set -u
OUT=${OUT:?}
RACE_SHARDS=${RACE_SHARDS:-8}; MIS_SHARDS=${MIS_SHARDS:-3}; LIMIT=${LIMIT:-470}
W=/tmp/san; mkdir -p $W && tar xzf .carry_s49/bundle/gpu_h200_bundle.tar.gz -C $W
part() {  # TOOLS I N
  local tools=$1 i=$2 n=$3 tag=${1//,/_}_$2
  (cd $W && FLASHCORE_SANITIZER_TOOLS=$tools FLASHCORE_SANITIZER_SHARD=$i/$n FLASHCORE_SANITIZER_TIMEOUT_S=$LIMIT \
     timeout $((LIMIT + 20)) python3 bundle/run.py --only gpu_h200_sanitizer --timeout $((LIMIT + 10)) --out $W/out_$tag \
     > $W/run_$tag.log 2>&1; echo "== $tools $i/$n rc=$? at $SECONDS s")
}
for i in $(seq 0 $((RACE_SHARDS - 1))); do part racecheck $i $RACE_SHARDS & done
for i in $(seq 0 $((MIS_SHARDS - 1))); do part memcheck,initcheck,synccheck $i $MIS_SHARDS & done
wait
for t in $W/out_*/tests/gpu_h200_sanitizer/test.log; do
  echo "-- $t"; grep -hE "this run:|covered|passed|failed|RACECHECK SUMMARY|ERROR SUMMARY|did not finish" $t | cut -c1-200 | tail -8
done
tar czf $OUT/san_logs.tgz -C $W $(cd $W && ls -d out_* run_*.log)
echo "done at $SECONDS s"
