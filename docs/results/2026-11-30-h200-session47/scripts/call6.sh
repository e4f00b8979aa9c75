# Session 47, device call 6 (H200): issue 13's GQA cost in the backward on issue 13's own rows
# (Hq 32 over Hk 32 / Hk 8, causal, bf16, d64 / d128, S 4096 / 16384), kernel-only from CUDA-graph
# replay, three rounds (gqa_bwd_cost.py); call 5's figure was one profiled eager call per row.
# HEAD's kernels (0b9912d's py tree). Carry .carry_s47: head.tar.xz.
set -u
S=docs/results/2026-11-30-h200-session47/scripts
export CARRY=.carry_s47 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
PYTHONPATH=$DC_AB/head/py timeout 240 python3 $S/gqa_bwd_cost.py 3 2>&1 | tee "$OUT/gqa_bwd_cost.txt" | grep -v "^r"
dc_finish
