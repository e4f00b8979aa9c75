# Session 57 call 8: on the final build (`new`, 6b8db33), memcheck and racecheck over the forward
# kernels while san_window_case.py runs the windowed 192-row tiles packed and unpacked, and the
# kvcache, paged_forward and api suites (calls 2 and 5 ran these on 5c90d51's build).
set -u
export CARRY=.carry_s57 DC_DEADLINE=400 DC_SAN_TIMEOUT=330
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 60 python3 docs/results/2026-12-01-h200-session57/scripts/san_window_case.py
SAN=1 dc_sanitize new docs/results/2026-12-01-h200-session57/scripts/san_window_case.py
dc_suites "gpu_h200_kvcache:200 gpu_h200_paged_forward:150 gpu_h200_api:120"
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|window sanitizer case|Error" $OUT/san_$t.log | head -5; done
dc_finish
