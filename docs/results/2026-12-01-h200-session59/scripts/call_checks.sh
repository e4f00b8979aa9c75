# Session 59: head dim 192's plain-call copy (`d192` build): memcheck and racecheck over the forward
# kernels while san_d192_case.py runs every 192 tile, then the suites that reach the forward.
set -u
export CARRY=.carry_s59 DC_DEADLINE=560 DC_SAN_TIMEOUT=300
. tools/bench/device_call.sh
dc_unpack d192
S=docs/results/2026-12-01-h200-session59/scripts
PYTHONPATH=$DC_AB/d192/py timeout 60 python3 $S/san_d192_case.py
dc_sanitize d192 $S/san_d192_case.py
dc_suites "${SUITES:-gpu_h200_features:170 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
