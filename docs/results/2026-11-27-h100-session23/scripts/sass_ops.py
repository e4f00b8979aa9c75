"""Session 23: executed instructions by opcode from ncu --page source --print-source sass --csv exports (gzipped): python3 sass_ops.py A.csv.gz [B.csv.gz ...]."""
import csv, gzip, sys, collections
def load(path):
    rows = []
    with gzip.open(path, "rt") as f:
        r = csv.reader(f)
        next(r)
        hdr = next(r)
        for row in r:
            if len(row) < len(hdr): continue
            rows.append(dict(zip(hdr, row)))
    return hdr, rows
def num(x):
    try: return float(x)
    except: return 0.0
def op_of(src):
    s = src.strip()
    if s.startswith("@"): s = s.split(None, 1)[1]
    return s.split()[0] if s else "?"
if __name__ == "__main__":
  for path in sys.argv[1:]:
      hdr, rows = load(path)
      tot = collections.Counter(); st = collections.Counter(); full = collections.Counter()
      for r in rows:
          op = op_of(r["Source"])
          tot[op] += num(r["Instructions Executed"]); st[op] += num(r["Warp Stall Sampling (All Samples)"])
          base = op.split(".")[0]
          full[base] += num(r["Instructions Executed"])
      T = sum(tot.values()); S = sum(st.values())
      print("==", path, "instr %.1f M, samples %d, static %d" % (T/1e6, S, len(rows)))
      for op, v in full.most_common(40):
          print("  %-12s %8.2f M  %5.1f%%" % (op, v/1e6, 100*v/T))
