"""Top SASS lines by warp-stall samples from `ncu -i REP --page source --print-source sass --csv`,
and the samples summed by opcode: where the kernel's warps wait."""
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr_i = next(i for i, r in enumerate(rows) if any("Warp Stall Sampling (All" in c for c in r))
hdr = rows[hdr_i]
col = lambda name: next(i for i, c in enumerate(hdr) if c.startswith(name))
ci_src, ci_all = col("Source"), col("Warp Stall Sampling (All")
ci_ni = col("Warp Stall Sampling (Not")
data = []
for r in rows[hdr_i + 1:]:
    if len(r) <= max(ci_src, ci_all):
        continue
    try:
        a = float(r[ci_all] or 0); n = float(r[ci_ni] or 0)
    except ValueError:
        continue
    data.append((a, n, r[ci_src].strip(), r[0]))
tot = sum(d[0] for d in data) or 1
print("total samples %d over %d SASS lines" % (tot, len(data)))
by_op = collections.Counter()
for a, n, src, _ in data:
    by_op[src.split()[0].split(".")[0] if src and not src.startswith("@") else (src.split()[1].split(".")[0] if len(src.split()) > 1 else src)] += a
print("by opcode:", ", ".join("%s %.1f%%" % (k, 100 * v / tot) for k, v in by_op.most_common(14)))
base = min(int(d[3], 16) for d in data if d[3].startswith("0x"))
for a, n, src, addr in sorted(data, reverse=True)[:int(sys.argv[2]) if len(sys.argv) > 2 else 36]:
    print("%5.1f%% %5.1f%%  +%05x  %s" % (100 * a / tot, 100 * n / tot, int(addr, 16) - base, src[:110]))
