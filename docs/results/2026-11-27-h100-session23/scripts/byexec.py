"""Session 23: SASS instructions grouped by execution count (a per-step loop body shows as one large group), with their opcodes: python3 byexec.py A.csv.gz."""
import sys, collections
from sass_ops import load, num, op_of
hdr, rows = load(sys.argv[1])
c = collections.Counter(); ops = collections.defaultdict(collections.Counter)
for r in rows:
    e = int(num(r["Instructions Executed"]))
    c[e] += 1
    ops[e][op_of(r["Source"]).split(".")[0]] += 1
for e, n in sorted(c.items(), key=lambda kv: -kv[0] * kv[1])[:12]:
    print("exec %10d  x %5d instr = %7.1f M   %s" % (e, n, e * n / 1e6, ", ".join("%s %d" % kv for kv in ops[e].most_common(14))))
