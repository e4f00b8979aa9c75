# Session 59: the plain copy for head dim 192's narrow copy too (`pair` build: multi-head latent
# attention's (192, 128) pair) against `d192` (bd4c55a), kernel-only forward rows of
# tools/bench/ab_kernels.py in alternating processes; then memcheck / racecheck over every 192 tile
# at both v head dims and the suites that reach the forward, on `pair`.
set -u
export CARRY=.carry_s59 DC_DEADLINE=560 DC_AB_TIMEOUT=120 DC_SAN_TIMEOUT=300
. tools/bench/device_call.sh
dc_unpack d192 pair
dc_ab 2 d192 pair -- --dtype bf16 --dims 192:128,192 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 2 d192 pair -- --dtype fp16 --dims 192:128 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_table d192 pair
echo "A/B done at $(dc_elapsed) s"
S=docs/results/2026-12-01-h200-session59/scripts
PYTHONPATH=$DC_AB/pair/py timeout 60 python3 $S/san_d192_case.py
DC_SAN_KERNELS=kns=fwd_kernel dc_sanitize pair $S/san_d192_case.py
dc_suites "${SUITES:-gpu_h200_features:170 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
