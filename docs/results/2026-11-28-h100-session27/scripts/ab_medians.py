"""Medians per cell of decode_orders.py lines tagged <build>-<round>: ab_medians.py LOG A B."""
import collections
import re
import statistics
import sys

log, a, b = sys.argv[1:4]
pct = collections.defaultdict(list)
for line in open(log):
    m = re.match(r"(\S+)-\d+ (B\S+ Hq\d+ Hk\d+ k\d+ d\d+)\s+(.*?)\s+([\d.]+) us\s+([\d.]+)%", line)
    if m:
        pct[(m.group(2) + " " + m.group(3).strip(), m.group(1))].append(float(m.group(5)))
for cell in sorted({c for c, _ in pct}, key=lambda c: list(dict.fromkeys(c2 for c2, _ in pct)).index(c)):
    x, y = pct[(cell, a)], pct[(cell, b)]
    if x and y:
        print("%-50s %s %s | %s %s | %s-%s %+.1f" % (cell, a, " ".join("%.1f" % t for t in x), b,
              " ".join("%.1f" % t for t in y), b, a, statistics.median(y) - statistics.median(x)))
