# Session 44, device call 5 (H200): per-CTA stamps of the sm90a backward main kernel
# (bwd_cta_trace.diff on HEAD's kernels: `trace`), one eager backward per row, bf16 paper grid;
# cta_timeline.py says where each CTA's SM time goes (prologue, steps, epilogue, gaps, tail).
# Carry .carry_s44 (trace.tar.xz).
set -u
S=docs/results/2026-11-29-h200-session44/scripts
export CARRY=.carry_s44
. tools/bench/device_call.sh
dc_unpack trace
PYTHONPATH=$DC_AB/trace/py timeout 200 python3 $S/cta_trace_run.py $OUT/tr \
  bf16:64:causal:1024 bf16:64:full:1024 bf16:64:causal:4096 bf16:64:full:16384 \
  bf16:128:causal:1024 bf16:128:full:1024 bf16:128:causal:4096 bf16:128:full:16384 2>&1 | tail -10
python3 $S/cta_timeline.py $OUT/tr/*.bin 2>&1 | tee $OUT/timeline.txt
gzip $OUT/tr/*.bin
