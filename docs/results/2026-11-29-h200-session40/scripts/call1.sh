# Session 40, device call 1 (H200): session 39's prepared hand-over (hoist: the producer hands each
# tile's plan to the consumers with its Q; Q's and V's tile addresses broadcast once a tile).
# Kernel-only A/B of head (df25cf9, the landed walk) vs hoist in alternating processes: bf16 three
# rounds (every head dim at S 1024 / 16384, the window / softcap rows, packed mixed / equal),
# session 38's partial-tile rows (two rounds), fp16 one round at S 1024; then memcheck + racecheck
# beside the suites on hoist.
# Carry .carry_s40: bundle/ (hoist), head.tar.xz, hoist.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s40 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head hoist
dc_ab 3 head hoist -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head hoist -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_ab 1 head hoist -- --dtype fp16 --passes fwd --dims 64,128,192,256 --seqlens 1024 --nofeatures --rep 25
dc_table head hoist
DC_SAN_TIMEOUT=300 dc_sanitize hoist docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:240 gpu_h200_features:260 gpu_h200_edge:200 gpu_h200_fuzz:260 gpu_h200_paged_forward:240 gpu_h200_kvcache:260"
dc_finish
