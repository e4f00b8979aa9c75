import csv, gzip, sys, collections
f = sys.argv[1]
rows = list(csv.reader(gzip.open(f, 'rt')))
hdr = rows[1]; data = rows[2:]
iS = hdr.index("Warp Stall Sampling (All Samples)"); iE = hdr.index("Instructions Executed")
# stall reason columns
reason_cols = [i for i, h in enumerate(hdr) if h.startswith("stall_") or "Stall" in h and i not in (iS, hdr.index("Warp Stall Sampling (Not-issued Samples)"))]
tot = sum(int(r[iS] or 0) for r in data)
inst = sum(int(r[iE] or 0) for r in data)
print(f, "samples", tot, "inst", inst)
# aggregate by opcode
by = collections.Counter(); byi = collections.Counter()
for r in data:
    op = r[1].split()[0] if not r[1].split()[0].startswith('@') else r[1].split()[1]
    by[op] += int(r[iS] or 0); byi[op] += int(r[iE] or 0)
for op, n in by.most_common(14):
    print("  %-28s %6.1f%%  inst %d" % (op, 100*n/tot, byi[op]))
# top lines
top = sorted(data, key=lambda r: -int(r[iS] or 0))[:14]
for r in top:
    print("  %5.1f%% %s" % (100*int(r[iS])/tot, r[1].strip()[:70]))
