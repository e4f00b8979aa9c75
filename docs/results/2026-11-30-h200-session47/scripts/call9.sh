# Session 47, device call 9 (H200): the backward's mask test in the fragment's terms (`mask`:
# bwd_scores.cuh row_sees_key, one compare of an immediate per window bound instead of
# keys_of_row's min / max per row; call 8's ncu counted ~1,760 more warp instructions a causal d64
# S1024 CTA than FA4's, beyond the unmasked rows' difference) against HEAD (`head`, 0b9912d's
# kernels). Kernel-only A/B (CUDA-graph replay), bf16, two rounds, d64 / d128, S 1024 / 4096 (full
# rows: controls, their masked path runs only on a partial last key block), then the backward and
# feature suites on mask. Carry .carry_s47: bundle/ (mask), head / mask .tar.xz.
set -u
export CARRY=.carry_s47 DC_DEADLINE=100
. tools/bench/device_call.sh
dc_unpack head mask
dc_ab 2 head mask -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096 --nofeatures --rep 20
dc_table head mask
dc_suites "gpu_h200_bwd:150 gpu_h200_features:150"
dc_finish
