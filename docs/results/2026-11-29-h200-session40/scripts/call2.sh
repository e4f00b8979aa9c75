# Session 40, device call 2 (H200): the hand-over at head dims 128 / 192 / 256 with the K / V ring
# barriers addressed from a broadcast base (bars: call 1's hoist build read d128 S16384 full 0.968;
# its main loops' try_wait / arrive took per-lane addresses). Kernel-only A/B of head (df25cf9) vs
# bars in alternating processes: bf16 three rounds (d128 / 192 / 256 at S 1024 / 16384, window /
# softcap rows), session 38's partial-tile and packed rows (two rounds), fp16 one round; then
# memcheck + racecheck beside the suites on bars.
# Carry .carry_s40: bundle/ (bars), head.tar.xz, bars.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s40 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head bars
dc_ab 3 head bars -- --dtype bf16 --passes fwd --dims 128,192,256 --seqlens 1024,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head bars -- --dtypes bf16 --dims 128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_ab 1 head bars -- --dtype fp16 --passes fwd --dims 128,192,256 --seqlens 1024,16384 --nofeatures --rep 25
dc_table head bars
DC_SAN_TIMEOUT=300 dc_sanitize bars docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:240 gpu_h200_features:260 gpu_h200_edge:200 gpu_h200_fuzz:260 gpu_h200_paged_forward:240 gpu_h200_kvcache:260"
dc_finish
