"""Session 32: ranges of new / head best TFLOP/s by row group (pass, head dim, plain / softcap,
full / causal) from an ab_kernels.py log. Usage: ranges.py LOG HEAD NEW"""
import collections
import sys

best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        best[tuple(f[1:6])][f[0].rsplit("_r", 1)[0]] = max(best[tuple(f[1:6])].get(f[0].rsplit("_r", 1)[0], 0), float(f[-2]))
groups = collections.defaultdict(list)
for (pas, dt, dim, s, mask), d in best.items():
    if sys.argv[2] in d and sys.argv[3] in d:
        groups[(pas, dim.split("sc")[0], "softcap" if "sc" in dim else "plain", mask)].append(d[sys.argv[3]] / d[sys.argv[2]])
for k in sorted(groups):
    v = groups[k]
    print(f"{' '.join(k):32s} {min(v):.3f}..{max(v):.3f}  (n={len(v)})")
