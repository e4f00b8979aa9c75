# Session 45, device call 4 (H200): head dim 128's forward on a 128 x 176 long-rows tile (unmasked
# only; one Q buffer, O stored from registers) against its 128 x 128 default tile, the same build
# with the tile forced per process (ab_tile.py: `long` / `dflt`), kernel-only, bf16 two rounds, fp16
# one, S 1024-16384 (causal rows: the default tile both ways, a control); then the forward oracle
# suites (gpu_h200 with the long-rows and switch-edge tests at 120 / 128, features with the
# 128 long-rows features test). Carry .carry_s45: bundle/ (this build), long / dflt .tar.xz (the same).
set -u
S=docs/results/2026-11-29-h200-session45/scripts
export CARRY=.carry_s45 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack long dflt
export DC_AB_CMD="python3 $S/ab_tile.py"
dc_ab 2 dflt long -- --dtype bf16 --passes fwd --dims 128 --seqlens 1024,2048,4096,8192,16384 --nofeatures --rep 25
dc_ab 1 dflt long -- --dtype fp16 --passes fwd --dims 128 --seqlens 1024,2048,4096,8192,16384 --nofeatures --rep 25
dc_table dflt long
dc_suites "gpu_h200:300 gpu_h200_features:200"
dc_finish
