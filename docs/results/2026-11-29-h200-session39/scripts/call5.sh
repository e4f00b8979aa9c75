# Session 39, device call 5 (H200): the tile plan handed over with Q, racecheck-clean form (slot2:
# lane 0 of each consumer warp reads the slot). Kernel-only A/B of div (committed) vs slot2 in
# alternating processes: bf16 three rounds (every head dim at S 1024 / 16384, the window / softcap
# rows), session 38's partial-tile rows (two rounds), fp16 one round at S 1024; then memcheck +
# racecheck beside the suites on slot2.
# Carry .carry_s39: bundle/ (slot2), div.tar.xz, slot2.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s39 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack div slot2
dc_ab 3 div slot2 -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 div slot2 -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_ab 1 div slot2 -- --dtype fp16 --passes fwd --dims 64,128,192,256 --seqlens 1024 --nofeatures --rep 25
dc_table div slot2
DC_SAN_TIMEOUT=300 dc_sanitize slot2 docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:240 gpu_h200_features:260 gpu_h200_edge:200 gpu_h200_fuzz:260 gpu_h200_paged_forward:240 gpu_h200_kvcache:260"
dc_finish
