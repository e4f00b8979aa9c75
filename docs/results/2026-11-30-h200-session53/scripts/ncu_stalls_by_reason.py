import csv, gzip, sys, collections
rows = list(csv.reader(gzip.open(sys.argv[1], 'rt')))
hdr = rows[1]; data = rows[2:]
iS = hdr.index("Warp Stall Sampling (All Samples)")
rc = [i for i,h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
tot = sum(int(r[iS] or 0) for r in data)
agg = collections.Counter()
for r in data:
    for i in rc: agg[hdr[i]] += int(r[i] or 0)
print("reasons:", ", ".join("%s %.1f%%" % (k[6:], 100*v/tot) for k, v in agg.most_common(9)))
top = sorted(range(len(data)), key=lambda j: -int(data[j][iS] or 0))[:int(sys.argv[2]) if len(sys.argv)>2 else 8]
for j in top:
    r = data[j]
    rs = sorted(((int(r[i] or 0), hdr[i][6:]) for i in rc), reverse=True)[:3]
    print("  %5.1f%% [%d] %-50s %s" % (100*int(r[iS])/tot, j, r[1].strip()[:50], " ".join("%s:%d" % (n, v) for v, n in rs)))
