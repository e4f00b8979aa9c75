# Session 56 call 9: memcheck and racecheck over the forward kernels while san_window_case.py runs
# the 192-row tiles under causal windows (the walk this session changed), final build.
set -u
export CARRY=.carry_s56 DC_DEADLINE=400 DC_SAN_TIMEOUT=300
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 120 python3 docs/results/2026-12-01-h200-session56/scripts/san_window_case.py
export SAN=1; dc_sanitize new docs/results/2026-12-01-h200-session56/scripts/san_window_case.py
wait
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|ERROR SUMMARY|RACECHECK SUMMARY|window sanitizer case|Error" $OUT/san_$t.log | head -5; done
dc_finish
