# Session 58: the plain-copy build's checks: memcheck and racecheck over the forward kernels while
# san_plain_case.py runs the plain copy on every d64 / d128 tile (and the general copy), then the
# suites that reach the forward: features, main, edge, fuzz, hf.
set -u
export CARRY=.carry_s58 DC_DEADLINE=560 DC_SAN_TIMEOUT=330
. tools/bench/device_call.sh
dc_unpack plain
PYTHONPATH=$DC_AB/plain/py timeout 60 python3 docs/results/2026-12-01-h200-session58/scripts/san_plain_case.py
dc_sanitize plain docs/results/2026-12-01-h200-session58/scripts/san_plain_case.py
dc_suites "${SUITES:-gpu_h200_features:200 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:150 gpu_h200_hf:120}"
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|sanitizer case|Error" $OUT/san_$t.log | head -5; done
dc_finish
