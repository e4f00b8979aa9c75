# Session 46, device call 5 (H200): the forward suites of the final build (the oracle, and the API /
# runtime suite split out of it this session, gpu_h200_api) and, beside nothing else, the feature
# rows' backward (window, softcap, sink; d64 / d128) head vs lagonly, two rounds (call 2's single
# d128 sink reading was 0.983). Carry .carry_s46: bundle/ (final), head / lagonly .tar.xz.
set -u
export CARRY=.carry_s46 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack head lagonly
dc_ab 2 head lagonly -- --dtype bf16 --passes bwd --dims 128 --seqlens 4096 --sink --rep 40
dc_table head lagonly
dc_suites "gpu_h200:280 gpu_h200_api:200"
dc_finish
