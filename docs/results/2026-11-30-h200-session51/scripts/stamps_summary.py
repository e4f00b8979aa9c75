"""Summary of one call's decode CTA stamps (the last grid printed): per CTA its start and end
relative to the grid's first start (us) and its cycles; which CTAs end last, and whether lateness
follows the split, the kv head or the SM."""
import sys
from collections import defaultdict

rows = [l.split() for l in open(sys.argv[1]) if l.startswith("STAMP")]
rows = [(int(w), int(x), int(y), int(z), int(sm), int(t0), int(t1), int(c)) for _, w, x, y, z, sm, t0, t1, c in rows]
n = len(rows)
# the last call's grid: CTAs sharing the latest run of starts (3 calls printed; grid size = n / 3)
g = n // 3
last = rows[-g:]
t00 = min(r[5] for r in last)
starts = sorted((r[5] - t00) / 1e3 for r in last)
ends = sorted((r[6] - t00) / 1e3 for r in last)
cyc = sorted(r[7] for r in last)
print("%s: %d CTAs | start us: min %.1f max %.1f | end us: min %.1f p10 %.1f median %.1f p90 %.1f max %.1f | cycles min %d median %d max %d (mean/max %.3f)" % (
    sys.argv[2], g, starts[0], starts[-1], ends[0], ends[g // 10], ends[g // 2], ends[9 * g // 10], ends[-1],
    cyc[0], cyc[g // 2], cyc[-1], sum(cyc) / g / cyc[-1]))
late = sorted(last, key=lambda r: -r[6])[:8]
print("  latest 8 (split, kv head, sm, end us, cycles):", " ".join("(%d,%d,%d,%.1f,%d)" % (r[1], r[2], r[4], (r[6] - t00) / 1e3, r[7]) for r in late))
by_split = defaultdict(list)
by_gpc = defaultdict(list)
for r in last:
    by_split[r[1]].append(r[7])
    by_gpc[r[4] // 18].append(r[7])
print("  mean cycles by split:", " ".join("%d:%.0f" % (k, sum(v) / len(v) / 1e3) for k, v in sorted(by_split.items())), "(k cycles)")
print("  mean cycles by sm/18:", " ".join("%d:%.0f" % (k, sum(v) / len(v) / 1e3) for k, v in sorted(by_gpc.items())))
