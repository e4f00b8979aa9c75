"""Session 19: ratio tables from tools/bench/attention.py JSONs (every backend in one process).
argv: json(.gz) [key]: graph_tflops (kernel-only, forward) or tflops (eager; the backward rows)."""
import gzip, json, statistics, sys
path, key = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "graph_tflops")
d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
rat = {"fa4": [], "cudnn": []}
for r in d["records"]:
    b = r["backends"]
    g = lambda n: (b.get(n) or {}).get(key) or float("nan")
    fc, fa4, cd, fa2 = g("flashcore"), g("fa4"), g("cudnn"), g("flash")
    tag = "".join(["" if not r.get("heads_kv") or r["heads_kv"] == r["heads"] else " gqa%d/%d" % (r["heads"], r["heads_kv"]),
                   " win%s" % (r["window"],) if isinstance(r.get("window"), int) and r["window"] >= 0 else "",
                   " cap%g" % r["softcap"] if r.get("softcap") else "", " varlen" if r.get("varlen") else ""])
    print("%s d%-3d %-6s S%-5d%-18s fc %6.1f fa4 %6.1f cudnn %6.1f fa2 %6.1f  fc/fa4 %.3f fc/cudnn %.3f" % (
        r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", r["seqlen"], tag, fc, fa4, cd, fa2, fc / fa4, fc / cd))
    for n, v in (("fa4", fa4), ("cudnn", cd)):
        if v == v and v > 0:
            rat[n].append(fc / v)
for n, v in rat.items():
    if v:
        print("fc/%s min %.3f median %.3f max %.3f; >=0.9: %d/%d; >=1.0: %d/%d" % (
            n, min(v), statistics.median(v), max(v), sum(x >= 0.9 for x in v), len(v), sum(x >= 1.0 for x in v), len(v)))
