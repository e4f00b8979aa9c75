# Session 59: the plain copy's P conversion amid the exp2s (`mid` build: the wait for the previous
# P V in the middle of the softmax step's exp2s, P converted before O's rescale) against `d192`
# (bd4c55a), kernel-only forward rows of tools/bench/ab_kernels.py in alternating processes; then
# memcheck / racecheck over the plain copy's tiles and the suites that reach the forward, on `mid`.
set -u
export CARRY=.carry_s59 DC_DEADLINE=560 DC_AB_TIMEOUT=120 DC_SAN_TIMEOUT=300
. tools/bench/device_call.sh
dc_unpack d192 mid
dc_ab 2 d192 mid -- --dtype bf16 --dims 64,128,192 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 d192 mid -- --dtype fp16 --dims 64,128,192 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 d192 mid -- --dtype bf16 --dims 128 --groups 4 --passes fwd --seqlens 4096,16384 --nofeatures
dc_table d192 mid
echo "A/B done at $(dc_elapsed) s"
S=docs/results/2026-12-01-h200-session59/scripts
dc_sanitize mid $S/san_plain_cases.py
dc_suites "${SUITES:-gpu_h200_features:170 gpu_h200:100 gpu_h200_edge:60 gpu_h200_fuzz:140}"
dc_finish
