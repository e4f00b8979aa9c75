"""Session 24: flashcore's ratios to FA4, cuDNN and FA2 per row of attention.py JSON records
(forward: kernel-only graph TFLOP/s; backward: the eager autograd backward), and issue 13's
feature costs (each feature row against its plain row, flashcore and FA4):
python3 ratios.py feat_fwd.json [paper_bwd.json ...]"""
import json, statistics, sys
sys.path.insert(0, "tools/bench")
for path in sys.argv[1:]:
    d = json.load(open(path))
    recs = d["records"]
    kind = "graph_tflops" if recs and recs[0]["mode"] == "fwd" else "tflops"
    print("== %s (%s)" % (path, kind))
    ratios = {"fa4": [], "cudnn": [], "flash": []}
    for r in recs:
        b = r["backends"]
        t = lambda n: (b.get(n) or {}).get(kind) or (b.get(n) or {}).get("tflops")
        fc = t("flashcore")
        label = "%s d%d %s S%d %s" % (r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", r["seqlen"],
                                      " ".join(r.get("features") or []))
        cells = []
        for n in ("fa4", "cudnn", "flash"):
            x = t(n)
            if x and fc:
                ratios[n].append(fc / x)
                cells.append("fc/%s %.3f" % (n, fc / x))
        print("%-44s fc %6.1f fa4 %6s  %s" % (label, fc or 0, "%.1f" % t("fa4") if t("fa4") else "-", "  ".join(cells)))
    for n, v in ratios.items():
        if v:
            print("fc/%s min %.3f median %.3f max %.3f; >=0.9: %d/%d; >=1.0: %d/%d" % (
                n, min(v), statistics.median(v), max(v), sum(x >= 0.9 for x in v), len(v), sum(x >= 1.0 for x in v), len(v)))
    for c in d.get("feature_costs") or []:
        print("cost", json.dumps(c)[:200])
