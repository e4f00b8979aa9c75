# Session 43, device call 6 (H200): the landed build (fragment order for the default d64 backward
# only; the deterministic kernels' SASS is HEAD's): memcheck + racecheck of the backward kernels
# (preprocess, main, convert) on session 42's san_bwd_lag.py beside the backward, feature, fuzz,
# edge and HF suites. Carry .carry_s43: bundle/ (final), final.tar.xz (its py tree).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack final
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=300 dc_sanitize final docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280 gpu_h200_fuzz:200 gpu_h200_edge:100 gpu_h200_hf:150"
dc_finish
