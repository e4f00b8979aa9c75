#!/bin/bash
# Session 15 call 10: the few-tiles forward tile (v4) against v3 on small grids (alternating
# processes), then the forward and feature suites on v4 (their small shapes now run that tile).
C=$PWD/.carry_s15b
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power'
for v in v3 v4; do mkdir -p /tmp/$v && tar xzf $C/${v}_attention_bundle.tar.gz -C /tmp/$v; done
for rep in 1 2; do for v in v3 v4; do
  R=/tmp/$v/bundle/runfiles
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 120 python3 $C/small_grid.py $v 2>&1 | grep -v Warn >> $OUT/small_grid.log
done; done
python3 - $OUT/small_grid.log <<'PY'
import sys, collections
best = collections.defaultdict(lambda: 1e9); cd = collections.defaultdict(lambda: 1e9); rows = []
for line in open(sys.argv[1]):
    if "flashcore" not in line: continue
    label, rest = line.split(" ", 1); row = rest.split(":")[0]
    if row not in rows: rows.append(row)
    f = rest.split()
    t = float(f[f.index("flashcore") + 1]); c = float(f[f.index("cudnn") + 1])
    best[(row, label)] = min(best[(row, label)], t); cd[row] = min(cd[row], c)
print("row".ljust(30), "v3 us".rjust(8), "v4 us".rjust(8), "v4/v3".rjust(7), "cudnn us".rjust(9), "v4/cudnn".rjust(9))
for r in rows:
    a, b = best[(r, "v3")], best[(r, "v4")]
    print(r.ljust(30), "%8.2f %8.2f %7.3f %9.2f %9.3f" % (a, b, b / a, cd[r], b / cd[r]))
PY
grep maxdiff $OUT/small_grid.log | awk '{print $NF}' | sort -g | tail -1 | sed 's/^/max maxdiff /'
CARRY=.carry_s15b SUITES="gpu_h100:240 gpu_h100_features:240 gpu_h100_edge:120" OUT=$OUT bash tools/bench/gpu_suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power'
