"""The A/B table of a call's ab_<i>_<build>.json files (ab_rows.py's JSON lines): per row, the best
reading of each build, head's time over new's (> 1: new faster), and every reading."""
import glob
import json
import sys

out = sys.argv[1]
best = {}
for f in sorted(glob.glob(out + "/ab_*.json")):
    b = f.rsplit("_", 1)[1][:-5]
    lines = [line for line in open(f) if line.startswith("{")]
    if lines:
        for row, us in json.loads(lines[-1]).items():
            best.setdefault(row, {}).setdefault(b, []).append(us)
print("%-38s %10s %10s %8s   %s" % ("row", "head us", "new us", "head/new", "readings head | new"))
for row, v in best.items():
    h, n = min(v["head"]), min(v["new"])
    print("%-38s %10.1f %10.1f %8.3f   %s | %s" % (row, h, n, h / n, " ".join("%.0f" % x for x in v["head"]),
                                                   " ".join("%.0f" % x for x in v["new"])))
