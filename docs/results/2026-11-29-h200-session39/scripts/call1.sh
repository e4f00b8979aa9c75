# Session 39, device call 1 (H200): the forward's tile timeline (scripts/fwd_timeline.py on the
# diagnostic build of fwd_trace.diff) and the same rows' kernel-only time on HEAD's build (the
# trace's perturbation). Carry .carry_s39: trace.tar.xz, head.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-29-h200-session39/scripts
for v in head trace; do mkdir -p /tmp/ab/$v && tar xJf .carry_s39/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/head/py:tools/bench timeout 150 python3 $S/fwd_timeline.py --out $OUT/tl --no_trace 2>&1 | tee $OUT/head_times.txt
PYTHONPATH=/tmp/ab/trace/py:tools/bench timeout 300 python3 $S/fwd_timeline.py --out $OUT/tl 2>&1 | tee $OUT/timeline.txt
