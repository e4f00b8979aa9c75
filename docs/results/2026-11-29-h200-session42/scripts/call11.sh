# Session 42, device call 11 (H200): the final kernels (`b0c10f7`; call 10's `defer` build, the
# commits since changed comments only) through the suites that had not yet run on head dim 64's
# lagged backward: hf (Hugging Face models, forward + backward), fuzz, edge inputs.
# Carry .carry_s42/bundle (defer).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=250
. tools/bench/device_call.sh
dc_suites "gpu_h200_hf:100 gpu_h200_fuzz:150 gpu_h200_edge:60"
dc_finish
