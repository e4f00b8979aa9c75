# Call 2 (session 49): the backward's first loads issued by thread 0 before the CTA-wide barrier
# (`e1`: issue_bwd_first_loads, K / V and step 0's Q / dO right after the barriers' init) against
# HEAD (`head`). ptxas: registers and spills of every kernel in the d64 causal, d128 causal and d256
# full TUs identical to HEAD; 100 backward main kernels change SASS (60 split-keys, 40 wide), the
# other 349 functions identical; _C.so 32,073,792 -> 32,241,728 bytes.
# Predicted: the first loads no longer wait for the __syncthreads, the producer's setmaxnreg and
# run_bwd_producer's set-up: ~200-500 clocks of a ~27,000-clock d64 causal S1024 CTA (session 44's
# stamps), +0.5..+1.5% at S1024, within noise from S4096.
set -u
export CARRY=.carry_s49 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head e1
dc_ab 2 head e1 -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,2048,4096 --det --rep 20
dc_ab 1 head e1 -- --dtype fp16 --passes bwd --dims 64,128 --seqlens 1024,4096 --nofeatures --rep 20
dc_ab 1 head e1 -- --dtype bf16 --passes bwd --dims 96,256 --seqlens 1024,4096 --nofeatures --rep 20
dc_table head e1
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize e1 docs/results/2026-11-29-h200-session46/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
