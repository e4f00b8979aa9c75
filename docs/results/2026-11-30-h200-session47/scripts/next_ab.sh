# For the next session (not run): the device call that measures session 47's two prepared diffs
# (prepared/bwd_mask_in_fragment_terms.diff = `mask`, prepared/bwd_mask_and_stat_rows.diff =
# `both`) against HEAD (`head`). Build each tree's //tests:gpu_h200_bundle and carry its py tree as
# <build>.tar.xz in .carry_s48 (tar cJf <build>.tar.xz -C <bundle>/runfiles/_main py), with
# `both`'s bundle as bundle/gpu_h200_bundle.tar.gz. Both diffs build (session 47: 106 of 449
# SASS-bearing functions change with `both`, every sm90a backward main kernel among them; _C.so
# 32,163,904 -> 32,106,560 bytes). Predicted: `mask` +2..+4% at d64 causal S1024, less at d128 and
# longer rows, unmasked rows unchanged; `both` a further +1..+2% on every row.
set -u
S=docs/results/2026-11-30-h200-session47/scripts
export CARRY=.carry_s48 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head mask both
dc_ab 2 head mask both -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --rep 20
dc_ab 1 head mask both -- --dtype fp16 --passes bwd --dims 64,96,128 --seqlens 1024,4096 --nofeatures --rep 20
dc_table head mask both
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize both docs/results/2026-11-29-h200-session46/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
