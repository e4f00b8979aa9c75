# Session 39, device call 4 (H200): the producer hands each tile's plan to the consumers with its Q
# (slot). Kernel-only A/B in alternating processes, bf16, two rounds: HEAD (session 38's final), div
# (call 3's change, committed) and slot, on the paper-grid forward rows of every head dim at S 1024 /
# 2048 / 16384 (with the window / softcap rows) and session 38's partial-tile rows; then the suites
# on slot with compute-sanitizer memcheck + racecheck over the forward beside them.
# Carry .carry_s39: bundle/ (slot), head.tar.xz, div.tar.xz, slot.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s39 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head div slot
dc_ab 2 head div slot -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,2048,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head div slot -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_table head div slot
DC_SAN_TIMEOUT=300 dc_sanitize slot docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:240 gpu_h200_features:260 gpu_h200_edge:200 gpu_h200_fuzz:260 gpu_h200_paged_forward:240 gpu_h200_kvcache:260 gpu_h200_hf:200"
dc_finish
