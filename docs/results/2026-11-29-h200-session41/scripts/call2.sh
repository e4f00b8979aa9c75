# Session 41, device call 2 (H200): `split` = call 1's `ahead` backward + the forward's producer
# warp moved into kernels/hopper/fwd_producer.cuh (session 40's prepared diff, the producer's early
# return left in the kernel), against HEAD (`head`). The split's forward kernels are not
# SASS-identical to HEAD's (ptxas allocated them differently), so: forward kernel-only A/B over
# every head dim, bf16 two rounds at S 1024 / 16384 with the window / softcap rows, session 38's
# partial-tile rows one round, fp16 one round at S 1024; the backward's second A/B at 96 / 128
# (bf16 two rounds with the deterministic backward); then memcheck + racecheck of the forward on
# session 38's partial-tile case beside the forward, feature and edge suites.
# Carry .carry_s41: bundle/ (split), head.tar.xz, split.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=280
. tools/bench/device_call.sh
dc_unpack head split
dc_ab 2 head split -- --dtype bf16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024,16384 --rep 25
DC_AB_CMD="python3 docs/results/2026-11-29-h200-session38/scripts/partial_tiles_bench.py" \
  dc_ab 1 head split -- --dtypes bf16 --dims 64,128,192 --full_dims 128 --dense 1000,3000 --rep 25
dc_ab 1 head split -- --dtype fp16 --passes fwd --dims 64,96,128,192,256 --seqlens 1024 --nofeatures --rep 25
dc_ab 2 head split -- --dtype bf16 --passes bwd --det --dims 96,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head split
DC_SAN_TIMEOUT=240 dc_sanitize split docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:200 gpu_h200_features:160 gpu_h200_edge:100"
dc_finish
