# Session 44, device call 8 (H200): call 5's per-CTA stamps on call 7's `ab` build
# (apply_cta_trace.py on it: `trace_ab`), bf16 d64 / d128 causal S1024 and full S1024 / S4096.
# Carry .carry_s44 (trace_ab.tar.xz).
set -u
S=docs/results/2026-11-29-h200-session44/scripts
export CARRY=.carry_s44
. tools/bench/device_call.sh
dc_unpack trace_ab
PYTHONPATH=$DC_AB/trace_ab/py timeout 200 python3 $S/cta_trace_run.py $OUT/tr \
  bf16:64:causal:1024 bf16:64:full:1024 bf16:128:causal:1024 bf16:128:full:1024 bf16:128:causal:4096 2>&1 | tail -5
python3 $S/cta_timeline.py $OUT/tr/*.bin 2>&1 | tee $OUT/timeline.txt
gzip $OUT/tr/*.bin
