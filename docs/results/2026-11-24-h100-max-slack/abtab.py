import sys, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) < 8 or 'TFLOP/s' not in line: continue
    lab = p[0]; v = lab[:-1]; key = ' '.join(p[1:6]); tf = float(p[-2])
    rows[key].setdefault(v, []).append(tf)
vs = sorted({v for r in rows.values() for v in r})
base = sys.argv[2] if len(sys.argv) > 2 else vs[0]
print('row'.ljust(38), ' '.join(f'{v:>14}' for v in vs))
for k, r in rows.items():
    b = max(r[base])
    print(k.ljust(38), ' '.join(f'{max(r[v]):7.1f} {max(r[v])/b:5.3f}' if v in r else ' '*14 for v in vs), ' spread', ' '.join(f'{(max(r[v])-min(r[v]))/max(r[v])*100:.1f}' for v in vs if v in r))
