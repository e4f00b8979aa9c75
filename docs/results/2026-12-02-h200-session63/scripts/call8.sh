# Session 63 call 8: racecheck on the packed balanced walk without torch's reference (call 7's
# racecheck died inside torch's softmax, as calls 2-3 did on the old kernels too).
set -u
export CARRY=.carry_s63
. tools/bench/device_call.sh
dc_unpack var
S=docs/results/2026-12-02-h200-session63/scripts
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PYTHONPATH=$DC_AB/var/py timeout 200 $san --tool racecheck --error-exitcode 3 --kernel-name kns=fwd_kernel \
  python3 $S/race_varlen_fwd.py > $OUT/race_varlen.log 2>&1; echo "racecheck rc=$?"
grep -E "SUMMARY|calls|Error" $OUT/race_varlen.log | head -5
dc_finish
