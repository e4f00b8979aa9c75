"""Session 23: each mbarrier TRYWAIT / NANOSLEEP executed over 2e5 times, with its neighbours, execution counts and stall samples: python3 hot.py A.csv.gz."""
import sys
from sass_ops import load, num, op_of
path = sys.argv[1]
hdr, rows = load(path)
for i, r in enumerate(rows):
    if "TRYWAIT" in r["Source"] or "NANOSLEEP" in r["Source"]:
        lo, hi = max(0, i - 3), min(len(rows), i + 5)
        ex = num(r["Instructions Executed"])
        if ex < 2e5: continue
        print("----- idx", i, "exec %.2f M" % (ex / 1e6))
        for j in range(lo, hi):
            rr = rows[j]
            print("%5d %10.0f %7s  %s" % (j, num(rr["Instructions Executed"]), rr["Warp Stall Sampling (All Samples)"], rr["Source"].strip()[:90]))
