# Session 43, device call 4 (H200): call 3 again with the fragment order's own row kernels
# (`fragf2`: kernels/hopper/bwd_dq_fragments.cuh, one CTA per half slab: zeroed with 16-byte
# stores, converted through shared memory), since call 3's row-order walk of the slabs (8-byte
# pieces) cost the S1024 rows 5-9%. Against `head` (b0c10f7), same A/B, sanitizers and suites.
# Carry .carry_s43: bundle/ (fragf2), head / fragf2 .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=260
. tools/bench/device_call.sh
dc_unpack head fragf2
dc_ab 3 head fragf2 -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head fragf2 -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head fragf2
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=300 dc_sanitize fragf2 docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280 gpu_h200_fuzz:200 gpu_h200_edge:100 gpu_h200_hf:150"
dc_finish
