# Session 57 call 5: the other suites on this session's build (`new`), which the pack-GQA window
# rule reaches: hf (gpt-oss from config: sinks + a sliding window), fuzz (random GQA x window
# configurations), kvcache and paged_forward (paged caches with windows and GQA pack now), api.
set -u
export CARRY=.carry_s57 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_suites "gpu_h200_hf:200 gpu_h200_fuzz:200 gpu_h200_kvcache:200 gpu_h200_paged_forward:200 gpu_h200_api:150"
dc_finish
