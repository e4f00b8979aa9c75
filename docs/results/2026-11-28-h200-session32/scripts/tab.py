"""Session 31 (reused in 32): best TFLOP/s per row and build from ab_kernels.py logs (labels BUILD_rN); ratios of
each build to the first one named. Usage: tab.py LOG BASE OTHER..."""
import collections
import sys

best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        v = f[0].rsplit("_r", 1)[0]
        key = " ".join(f[1:6])
        best[key][v] = max(best[key].get(v, 0.0), float(f[-2]))
base, others = sys.argv[2], sys.argv[3:]
for key, d in best.items():
    if base in d:
        print(f"{key:40s} {base} {d[base]:7.1f} " + " ".join(
            f"{o} {d[o]:7.1f} {d[o] / d[base]:.3f}" for o in others if o in d))
