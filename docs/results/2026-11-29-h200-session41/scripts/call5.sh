# Session 41, device call 5 (H200): dK issued from registers before the dS barrier at every
# split-keys head dim (`dkall`: call 4's order at 128, now also at 64 and 96, where it replaces
# 96's scores-ahead order) against the landed build (`final`, ad5676b). Kernel-only backward A/B,
# bf16 two rounds at 64 / 96 / 128 with the deterministic backward and the window / softcap rows
# (128: a second reading of call 4's kernels), fp16 one round at 64 / 96; then the backward and
# feature suites and memcheck + racecheck of the backward on san_bwd_ahead.py (head dims 128 / 96 /
# 80 / 120) and session 24's san_persist.py part at 64.
# Carry .carry_s41: bundle/ (dkall), final.tar.xz, dkall.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=280
. tools/bench/device_call.sh
dc_unpack final dkall
dc_ab 2 final dkall -- --dtype bf16 --passes bwd --det --dims 64,96,128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final dkall -- --dtype fp16 --passes bwd --dims 64,96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final dkall
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize dkall docs/results/2026-11-29-h200-session41/scripts/san_bwd_dkall.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200"
dc_finish
