# Session 39, device call 6 (H200): the landed change (div, 513c72c) against session 38's final
# build (head), kernel-only in alternating processes: fp16 (the paper-grid forward rows at S 1024 /
# 2048 / 16384 of every head dim, one round; session 38's partial-tile rows, two rounds).
# Carry .carry_s39: head.tar.xz, div.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s39 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack head div
dc_ab 1 head div -- --dtype fp16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,2048,16384 --nofeatures --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 2 head div -- --dtypes fp16 --dims 64,128 --full_dims 128 --dense 1000 --rep 25
dc_table head div
dc_finish
