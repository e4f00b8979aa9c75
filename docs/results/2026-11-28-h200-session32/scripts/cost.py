"""Session 32: softcap's cost per row from an ab_kernels.py --softcaps 0,30 log: t_softcap / t_plain - 1
(issue 13's "at most 10% slower"), best time of the rounds, per build label. Usage: cost.py LOG BUILD..."""
import collections
import sys

best = collections.defaultdict(dict)  # (pass, dtype, dim, S, mask) -> build -> best ms
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        build = f[0].rsplit("_r", 1)[0]
        key = tuple(f[1:6])
        best[key][build] = min(best[key].get(build, 1e9), float(f[6]))
for key in sorted(best):
    pas, dt, dim, s, mask = key
    if "sc" in dim:
        continue
    sc = (pas, dt, dim + "sc30", s, mask)
    if sc not in best:
        continue
    cells = [f"{b} {best[sc][b] / best[key][b] - 1:+.1%}" for b in sys.argv[2:] if b in best[key] and b in best[sc]]
    print(f"{pas} {dt} {dim:5s} {s:6s} {mask:6s} " + "  ".join(cells))
