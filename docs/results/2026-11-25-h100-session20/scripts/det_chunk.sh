#!/usr/bin/env bash
# Session 20, call 1: the deterministic backward's launch-order chunk width (probe build with
# FLASHCORE_BWD_DET_CHUNK; -1 = SMs / key blocks, -2 = twice that), bwd and bwd_det in each process,
# widths in alternating processes. GPU machine, carry .carry_s20 (probe_attention_bundle.tar.gz).
set -u
C=$(cd .carry_s20 && pwd)
mkdir -p /tmp/p && tar xzf "$C/probe_attention_bundle.tar.gz" -C /tmp/p
R=/tmp/p/bundle/runfiles
throttle() { nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
throttle
LOG=$OUT/det_chunk.log
for rep in ${REPS:-1 2}; do
  for w in ${WIDTHS:-1 8 16 -1 -2}; do
    lab=$(echo "w$w" | tr -- '-0123456789' 'mabcdefghij')
    FLASHCORE_BWD_DET_CHUNK=$w PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 tools/bench/ab_kernels.py \
      --label "${lab}x" --passes bwd --det --nofeatures --rep 25 ${AB_ARGS:---dims 64,128 --seqlens 1024,2048,4096,16384} >> "$LOG" 2>&1
  done
done
throttle
python3 - "$LOG" <<'PY'
import collections, sys
best = collections.defaultdict(float); rows = []; labs = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        lab, row = f[0], " ".join(f[1:6])
        if row not in rows: rows.append(row)
        if lab not in labs: labs.append(lab)
        best[(row, lab)] = max(best[(row, lab)], float(f[-2]))
print("row".ljust(34), *[l.rjust(8) for l in labs])
for row in rows:
    print(row.ljust(34), *["%8.1f" % best[(row, l)] for l in labs])
print("det / default (best of each):")
for row in rows:
    if row.startswith("bwd_det"):
        base = row.replace("bwd_det", "bwd", 1)
        d = max(best[(base, l)] for l in labs)
        print(row.ljust(34), *["%8.3f" % (best[(row, l)] / d) for l in labs])
PY
tail -3 "$LOG"
