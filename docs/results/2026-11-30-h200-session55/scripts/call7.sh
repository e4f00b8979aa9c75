# Session 55 call 7: bf16 causal GQA calls whose unpacked walk takes the long-rows tile run unpacked
# (`unpack`, fwd_launch.cuh) against the landed build (`new`, fb1b828): the main and features suites
# on `unpack`, then a kernel-only forward A/B of the d64 GQA rows (groups 4 and 8), bf16 two rounds,
# fp16 one (its launcher is unchanged).
set -u
export CARRY=.carry_s55 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack new unpack
dc_suites "gpu_h200:240 gpu_h200_features:280"
dc_ab 2 new unpack -- --passes fwd --dims 64 --groups 4,8 --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 new unpack -- --passes fwd --dtype fp16 --dims 64 --groups 4 --seqlens 4096,16384 --nofeatures
dc_table new unpack
dc_finish
