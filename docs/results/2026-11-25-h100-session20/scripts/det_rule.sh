#!/usr/bin/env bash
# Session 20, call 3: the deterministic chunk rule (new_attention_bundle) against group-major
# (probe bundle with FLASHCORE_BWD_DET_CHUNK=1, what main ran), bwd and bwd_det in each process,
# alternating processes. GPU machine, carry .carry_s20.
set -u
C=$(cd .carry_s20 && pwd)
for v in probe new; do mkdir -p /tmp/$v && tar xzf "$C/${v}_attention_bundle.tar.gz" -C /tmp/$v; done
throttle() { nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'; }
throttle
LOG=$OUT/det_rule.log
run() {  # label args...
  local lab=$1; shift
  for rep in 1 2; do
    R=/tmp/probe/bundle/runfiles
    FLASHCORE_BWD_DET_CHUNK=1 PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 tools/bench/ab_kernels.py --label "main$lab" --passes bwd --det --nofeatures --rep 25 "$@" >> "$LOG" 2>&1
    R=/tmp/new/bundle/runfiles
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 tools/bench/ab_kernels.py --label "new$lab" --passes bwd --det --nofeatures --rep 25 "$@" >> "$LOG" 2>&1
  done
}
run x --dims 96,192,256 --seqlens 1024,4096
run y --dtype fp16 --dims 64,128 --seqlens 1024,2048,4096
throttle
python3 - "$LOG" <<'PY'
import collections, sys
best = collections.defaultdict(float); rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        lab, row = f[0].rstrip("xy"), " ".join(f[1:6])
        if row not in rows: rows.append(row)
        best[(row, lab)] = max(best[(row, lab)], float(f[-2]))
print("row".ljust(34), "main".rjust(8), "new".rjust(8), "new/main  det/default main, new")
for row in rows:
    m, n = best[(row, "main")], best[(row, "new")]
    extra = ""
    if row.startswith("bwd_det"):
        base = row.replace("bwd_det", "bwd", 1)
        d = max(best[(base, "main")], best[(base, "new")])
        extra = "  %.3f %.3f" % (m / d, n / d)
    print(row.ljust(34), "%8.1f" % m, "%8.1f" % n, "%8.3f" % (n / m), extra)
PY
