"""Session 54: paged_cells.py lines (LABEL_rN|d|row|layout|us|pct) of two builds -> per cell the
best of each build's rounds and new / HEAD speed. Usage: python3 cells_table.py FILE BASE NEW"""
import collections
import sys

path, base, new = sys.argv[1:4]
best = collections.defaultdict(dict)
for line in open(path):
    f = line.strip().split("|")
    if len(f) != 6:
        continue
    build = f[0].rsplit("_r", 1)[0]
    key = (f[1], f[2], f[3])
    us = float(f[4])
    if build not in best[key] or us < best[key][build][0]:
        best[key][build] = (us, float(f[5]))
for key, b in best.items():
    if base in b and new in b:
        print("%-5s %-24s %-10s %8.2f %8.2f us  %5.1f%% -> %5.1f%%  speed %.3f"
              % (key + (b[base][0], b[new][0], b[base][1], b[new][1], b[base][0] / b[new][0])))
