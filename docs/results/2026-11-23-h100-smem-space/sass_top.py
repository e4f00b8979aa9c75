import csv, gzip, sys, collections
rows = list(csv.reader(gzip.open(sys.argv[1], 'rt')))
hdr = rows[1]; data = rows[2:]
ix = {h:i for i,h in enumerate(hdr)}
stall_cols = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot = collections.Counter()
total = 0
recs = []
for r in data:
    if len(r) < len(hdr): continue
    s = int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
    total += s
    for c in stall_cols: tot[c] += int(r[ix[c]] or 0)
    recs.append((s, r[ix['Address']][-5:], r[ix['Source']].strip()[:70], {c:int(r[ix[c]] or 0) for c in stall_cols}))
print('total samples', total)
for c,v in tot.most_common(10): print(f'{c:30s} {v:8d} {100*v/total:5.1f}%')
N = int(sys.argv[2]) if len(sys.argv)>2 else 40
for i,(s,a,src,st) in enumerate(sorted(recs, key=lambda x:-x[0])[:N]):
    top = sorted(st.items(), key=lambda x:-x[1])[:2]
    print(f'{s:7d} {100*s/total:5.1f}% {a} {src:70s} {top}')
