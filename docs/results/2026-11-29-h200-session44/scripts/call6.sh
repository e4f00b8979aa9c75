# Session 44, device call 6 (H200): the CTA-to-CTA gap on an SM for a kernel shaped like the
# backward (cta_gap_probe.cu, built on the CPU machine), and call 5's stamps again with one more at
# the kernel's first instruction (d64 / d128 causal S1024). Carry .carry_s44 (probe/, trace.tar.xz).
set -u
S=docs/results/2026-11-29-h200-session44/scripts
export CARRY=.carry_s44
. tools/bench/device_call.sh
.carry_s44/probe/cta_gap_probe | tee $OUT/gap_probe.txt
dc_unpack trace
PYTHONPATH=$DC_AB/trace/py timeout 200 python3 $S/cta_trace_run.py $OUT/tr bf16:64:causal:1024 bf16:128:causal:1024 2>&1 | tail -3
python3 $S/cta_timeline.py $OUT/tr/*.bin 2>&1 | tee $OUT/timeline.txt
gzip $OUT/tr/*.bin
