"""Session 48: summarises an ncu source page (ncu -i REP --page source --csv --print-source sass, gzipped):
stall totals, samples / executions / wait stalls per opcode, and the PCs with the most samples.
Usage: python3 sass_stalls.py src.csv.gz [top_n]"""
import csv, gzip, sys, collections
f = sys.argv[1]
rows = list(csv.reader(gzip.open(f, 'rt')))
h = rows[1]; data = [r for r in rows[2:] if len(r) == len(h)]
ix = {k: i for i, k in enumerate(h)}
def num(r, k):
    v = r[ix[k]].replace(',', '')
    try: return float(v)
    except: return 0.0
stalls = [k for k in h if k.startswith('stall_') and '(Not Issued)' not in k]
tot = sum(num(r, '# Samples') for r in data)
print('instructions', len(data), 'samples', tot, 'executed', sum(num(r,'Instructions Executed') for r in data))
agg = collections.Counter()
for r in data:
    for k in stalls: agg[k] += num(r, k)
print('stall totals:', ', '.join('%s %.1f%%' % (k[6:], 100*v/tot) for k, v in agg.most_common(12)))
# by opcode
op = collections.Counter(); opx = collections.Counter(); opw = collections.Counter()
for r in data:
    s = r[ix['Source']].strip()
    o = s.split()[0] if s else '?'
    if o.startswith('@'): o = s.split()[1]
    o = o.split('.')[0]
    op[o] += num(r, '# Samples'); opx[o] += num(r, 'Instructions Executed'); opw[o] += num(r, 'stall_wait')
print('by opcode (samples%, executed, wait samples):')
for o, v in op.most_common(25):
    print('  %-10s %5.1f%%  exec %10d  wait %6d' % (o, 100*v/tot, opx[o], opw[o]))
print('top PCs:')
order = sorted(range(len(data)), key=lambda i: -num(data[i], '# Samples'))
for i in order[:int(sys.argv[2]) if len(sys.argv) > 2 else 40]:
    r = data[i]
    top = sorted(((num(r,k), k[6:]) for k in stalls), reverse=True)[:3]
    print('%5d %6.2f%% exec %8d  %-60s %s' % (i, 100*num(r,'# Samples')/tot, num(r,'Instructions Executed'), r[ix['Source']].strip()[:60], ' '.join('%s:%d' % (k, v) for v, k in top if v)))
