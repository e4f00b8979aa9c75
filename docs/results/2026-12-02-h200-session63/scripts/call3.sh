# Session 63 call 3: racecheck on the sorted tail at smaller shapes (call 2's racecheck died inside
# torch's bf16 reference, before any flashcore kernel ran), and the same call-2 case on `c` (the
# kernels before the change) to see whether that failure is the sanitizer's, not the change's.
set -u
export CARRY=.carry_s63
. tools/bench/device_call.sh
dc_unpack c tail
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
run_race() {  # BUILD TAG ARGS...
  local b=$1 tag=$2; shift 2
  (PYTHONPATH=$DC_AB/$b/py:tools/bench:tests timeout 420 $san --tool racecheck --error-exitcode 3 \
     --kernel-name kns=fwd_kernel python3 tools/bench/san_case.py "$@" > $OUT/race_$tag.log 2>&1
   echo "== racecheck $tag rc=$? at $(dc_elapsed) s") &
}
run_race tail tail_s1100 --dims 64,128 --causal causal --features plain,gqa --shape 8,1100,1100 --dtypes bf16
run_race tail tail_s2400 --dims 64 --causal causal --features plain --shape 2,2400,2400 --dtypes bf16
run_race c c_s2400x4 --dims 64 --causal causal --features plain --shape 4,2400,2400 --dtypes bf16
wait
for f in $OUT/race_*.log; do echo "-- $f"; grep -E "SUMMARY|Internal|cases passed|illegal" $f | head -4; done
dc_finish
