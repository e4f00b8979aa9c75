# Session 55 call 5: memcheck and racecheck over the forward kernels while the long-rows tiles run
# forced (scripts/san_long_rows_case.py) on the landed build's py tree (`new`, fb1b828).
set -u
export CARRY=.carry_s55 DC_DEADLINE=480 DC_SAN_TIMEOUT=450
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py python3 docs/results/2026-11-30-h200-session55/scripts/san_long_rows_case.py
dc_sanitize new docs/results/2026-11-30-h200-session55/scripts/san_long_rows_case.py
wait
for t in memcheck racecheck; do echo "-- $t"; tail -4 $OUT/san_$t.log; done
dc_finish
