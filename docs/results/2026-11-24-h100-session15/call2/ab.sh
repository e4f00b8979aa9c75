#!/bin/bash
# A/B/...: bundles .carry_s14/<v>_attention_bundle.tar.gz for v in $VARIANTS, ab.py in alternating processes.
C=$PWD/${CDIR:-.carry_s14}
for v in $VARIANTS; do mkdir -p /tmp/$v; tar xzf $C/${v}_attention_bundle.tar.gz -C /tmp/$v; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for rep in $(seq ${REPS:-2}); do
  for v in $VARIANTS; do
    R=/tmp/$v/bundle/runfiles
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 $C/ab.py --label $v$rep ${AB_ARGS:-} >> $OUT/ab.log 2>&1
  done
done
python3 - $OUT/ab.log <<'PY'
import sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        label = f[0][:-1]; rows[(" ".join(f[1:6]), label)].append(float(f[-2]))
keys = sorted({k for k, _ in rows}, key=lambda k: list(rows).index((k, [l for kk, l in rows if kk == k][0])))
labels = sorted({l for _, l in rows}, key=lambda l: [ll for _, ll in rows].index(l))
print("row".ljust(34), *[l.rjust(12) for l in labels], "ratio(last/first)")
for k in keys:
    v = [max(rows.get((k, l), [0])) for l in labels]
    print(k.ljust(34), *["%12.1f" % x for x in v], "%.3f" % (v[-1] / v[0] if v[0] else 0))
PY
