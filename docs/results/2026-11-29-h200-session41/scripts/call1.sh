# Session 41, device call 1 (H200): the sm90a backward with each step's S^T / dP^T issued before
# the step before's dK has finished, at head dims 128 and 96 (`ahead`) against HEAD (4d258ea's
# kernels, `head`). Kernel-only A/B (ab_kernels.py --passes bwd: preprocess + main + convert by
# CUDA-graph replay) in alternating processes: bf16 three rounds over d64 (SASS-identical: the
# noise floor) / d96 / d128 at S 1024 / 4096 / 16384 with the window / softcap rows and the
# deterministic backward, fp16 one round; then memcheck + racecheck of the backward kernels on
# san_bwd_ahead.py beside the backward suite.
# Carry .carry_s41: bundle/ (ahead), head.tar.xz, ahead.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head ahead
dc_ab 3 head ahead -- --dtype bf16 --passes bwd --det --dims 64,96,128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head ahead -- --dtype fp16 --passes bwd --dims 96,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head ahead
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize ahead docs/results/2026-11-29-h200-session41/scripts/san_bwd_ahead.py
dc_suites "gpu_h200_bwd:220"
dc_finish
