# Call 3 (session 50): checks of call 2's `tails` build -- memcheck + racecheck over every backward
# kernel while san_packed_tails.py runs (packed tails zeroed by the kernels, key blocks past their
# sequence), then the suites its kernels touch (features has the captured-backward tails test).
set -u
export CARRY=.carry_s50
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session50/scripts
dc_unpack tails
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=240 dc_sanitize tails $S/san_packed_tails.py
dc_suites "gpu_h200_bwd:230 gpu_h200_features:240 gpu_h200_fuzz:200 gpu_h200_edge:100 gpu_h200_api:150"
dc_finish
