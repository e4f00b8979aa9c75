# Session 24 call B (H100, right after call A on the same machine): FA4 (wheel part aa kept by call
# A) beside flashcore's build with the d64 causal long-rows threshold at 3072, cuDNN and FA2, every
# backend in one process: the feature rows forward and backward, the paper grid backward.
set -u
cd "$(dirname "$0")/../../../.."
xz -dc .carry_b/attention_bundle.tar.xz | gzip -1 > .carry_b/attention_bundle.tar.gz
CARRY=.carry_b PHASES="feat_fwd feat_bwd paper_bwd" T_END=540 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
