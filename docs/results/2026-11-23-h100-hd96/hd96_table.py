"""Tables of docs/results/2026-11-23-h100-hd96.md from the bench records (kernel-only TFLOP/s,
graph_tflops): python3 hd96_table.py [dir]. FA4's figures are the 2026-11-23 session 6 grid's
(2026-11-23-h100-wide/call2_paper_fwd.json.gz: same H100 kind, another call), S 1024/4096/16384."""
import gzip, json, os, sys

D = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def load(name):
    p = os.path.join(D, name)
    if not os.path.exists(p):
        return []
    return json.load(gzip.open(p) if p.endswith(".gz") else open(p))["records"]


def g(r, n):
    return ((r["backends"].get(n) or {}).get("graph_tflops")) or float("nan")


key = lambda r: (r["dtype"], r["head_dim"], r["causal"], r["seqlen"])
old = {key(r): r for r in load(os.path.join("..", "2026-11-23-h100-wide", "call2_paper_fwd.json.gz"))}
runs = [("A 128x128x3 (call 1)", "call1_bench_a.json.gz"), ("B 128x192x2 (call 1)", "call1_bench_b.json.gz"),
        ("C 128x176x2 (call 2)", "call2_bench_c.json.gz"), ("B 128x192x2 (call 2)", "call2_bench_b2.json.gz")]
for label, f in runs:
    recs = load(f)
    if not recs:
        continue
    print("\n%s" % label)
    print("| dtype | d | mask | S | fc | cuDNN | fc/cuDNN | FA2 | fc/FA2 | FA4 (s6) | fc/FA4 | fc in s6 (d96 then ran on 128) | ok |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in recs:
        fc, cd, fa2 = g(r, "flashcore"), g(r, "cudnn"), g(r, "flash")
        o = old.get(key(r))
        f4 = g(o, "fa4") if o else float("nan")
        prev = g(o, "flashcore") if o else float("nan")
        cell = lambda x, fmt="%.0f": "-" if x != x else fmt % x
        print("| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", r["seqlen"], cell(fc), cell(cd),
            cell(fc / cd, "%.2f"), cell(fa2), cell(fc / fa2, "%.2f"), cell(f4), cell(fc / f4, "%.2f"), cell(prev),
            r["backends"]["flashcore"].get("within_tolerance")))
