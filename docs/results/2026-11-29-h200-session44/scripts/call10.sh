# Session 44, device call 10 (H200): the build to land (`div`: the launch order's divisors set on
# the host, no device divide for one query head per k/v head; neither call 9's TMA epilogue nor
# call 7's split first loads): kernel-only A/B against `final` (HEAD), bf16 d64 / d128 default +
# deterministic + feature rows and fp16 d64 / d128 default, two rounds; then memcheck + racecheck
# of every backward kernel on san_bwd_epilogue.py (d64 / 128 / 40 / 120) beside the backward,
# feature, fuzz, edge and HF suites. Carry .carry_s44: bundle/ (div), final / div .tar.xz.
set -u
S=docs/results/2026-11-29-h200-session44/scripts
export CARRY=.carry_s44 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack final div
dc_ab 2 final div -- --dtype bf16 --passes bwd --det --dims 64,128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final div -- --dtype fp16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final div
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=300 dc_sanitize div $S/san_bwd_epilogue.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:120 gpu_h200_edge:60 gpu_h200_hf:100"
dc_finish
