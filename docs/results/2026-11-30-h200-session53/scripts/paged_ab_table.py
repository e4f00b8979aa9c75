"""Best (least us) per cell and build from paged_ab.py lines; ratio of each build to the first
(time first / time build: above 1, faster). Usage: python3 paged_ab_table.py FILE BUILD..."""
import collections
import sys

best = collections.defaultdict(dict)
order = []
for line in open(sys.argv[1]):
    parts = line.strip().split("|")
    if len(parts) != 5:
        continue
    label, row, lay, us, pct = parts
    build = label.rsplit("_r", 1)[0]
    key = (row, lay)
    if key not in order:
        order.append(key)
    if build not in best[key] or float(us) < best[key][build][0]:
        best[key][build] = (float(us), float(pct))
builds = sys.argv[2:]
print("| row | layout | " + " | ".join("%s us (%% floor)" % b for b in builds) + " | " +
      " | ".join("%s / %s" % (builds[0], b) for b in builds[1:]) + " |")
print("|---" * (2 + 2 * len(builds) - 1) + "|")
for key in order:
    cells = best[key]
    if builds[0] not in cells:
        continue
    vals = ["%.1f (%.1f)" % cells[b] if b in cells else "-" for b in builds]
    ratios = ["%.3f" % (cells[builds[0]][0] / cells[b][0]) if b in cells else "-" for b in builds[1:]]
    print("| %s | %s | %s | %s |" % (key[0], key[1], " | ".join(vals), " | ".join(ratios)))
