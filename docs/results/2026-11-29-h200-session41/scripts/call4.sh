# Session 41, device call 4 (H200): head dim 128's 80-row backward with dK issued from registers
# right after dV, before the dS barrier, and the dQ slice stored once dQ^T alone is done (`dkfirst`;
# section 5's timeline: the slice's 40 scalar stores took ~650 clocks beside dK's shared-memory
# operand reads), against the landed build (`final`, ad5676b). Kernel-only backward A/B at d128
# (bf16 three rounds with the deterministic backward and the window / softcap rows, fp16 one);
# then the backward suite and memcheck + racecheck of the backward on san_bwd_ahead.py.
# Carry .carry_s41: bundle/ (dkfirst), final.tar.xz, dkfirst.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack final dkfirst
dc_ab 3 final dkfirst -- --dtype bf16 --passes bwd --det --dims 128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final dkfirst -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final dkfirst
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize dkfirst docs/results/2026-11-29-h200-session41/scripts/san_bwd_ahead.py
dc_suites "gpu_h200_bwd:220"
dc_finish
