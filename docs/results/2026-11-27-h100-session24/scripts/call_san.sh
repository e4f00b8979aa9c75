# Session 24 (H100): the per-instantiation sanitizer sweep (tests/gpu_sanitizer_test.py) in
# parallel parts: TOOL (default racecheck) over SHARDS interleaved shards of the instantiations
# (FLASHCORE_SANITIZER_TOOLS / FLASHCORE_SANITIZER_SHARD), one bundle run.py process each.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
TOOL=${TOOL:-racecheck}; SHARDS=${SHARDS:-4}; LIMIT=${LIMIT:-520}
W=/tmp/san; mkdir -p $W && tar xzf .carry/gpu_h100_bundle.tar.gz -C $W
for i in $(seq 0 $((SHARDS - 1))); do
  (cd $W && FLASHCORE_SANITIZER_TOOLS=$TOOL FLASHCORE_SANITIZER_SHARD=$i/$SHARDS FLASHCORE_SANITIZER_TIMEOUT_S=$LIMIT \
     timeout $((LIMIT + 20)) python3 bundle/run.py --only gpu_h100_sanitizer --timeout $((LIMIT + 10)) --out $W/out_$i \
     > $W/run_$i.log 2>&1; echo "== shard $i/$SHARDS $TOOL rc=$? at $SECONDS s") &
done
wait
for i in $(seq 0 $((SHARDS - 1))); do
  t=$W/out_$i/tests/gpu_h100_sanitizer/test.log
  grep -hE "this run:|sweeping|passed|failed|RACECHECK SUMMARY|ERROR SUMMARY|did not finish" $t | cut -c1-200 | tail -6
done
tar czf $OUT/san_${TOOL//,/_}_logs.tgz -C $W $(cd $W && ls -d out_* run_*.log)
echo "done at $SECONDS s"
