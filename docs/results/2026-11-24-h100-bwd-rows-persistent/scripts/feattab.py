"""Markdown table of a bench features-grid JSON (feat_fwd / feat_bwd): flashcore / FA4 / cuDNN
TFLOP/s, fc/FA4 against issue 13's bar (forward 0.9, backward 0.8), rows with a feature counted.
--graph: the CUDA-graph replay figures (graph_tflops) instead of the eager ones."""
import json, sys
key = "graph_tflops" if "--graph" in sys.argv else "tflops"
for path in [a for a in sys.argv[1:] if not a.startswith("--")]:
    d = json.load(open(path))
    mode = d["records"][0]["mode"]
    bar = 0.9 if mode == "fwd" else 0.8
    print("%s (%s)\n" % (path.split("/")[-1], key))
    print("| mode | D | causal | S | B | Hq/Hk | features | flashcore | fa4 | cudnn | fc/FA4 |")
    print("|---" * 11 + "|")
    met = rows = 0
    for r in d["records"]:
        t = {b: r["backends"].get(b, {}).get(key) for b in ("flashcore", "fa4", "cudnn")}
        ratio = t["flashcore"] / t["fa4"] if t["flashcore"] and t["fa4"] else None
        feats = ",".join(r["features"]) or "plain"
        if r["features"] and ratio is not None:
            rows += 1
            met += ratio >= bar
        cell = lambda x: "%.0f" % x if x else "-"
        print("| %s | %d | %s | %d | %d | %d/%d | %s | %s | %s | %s | %s |" % (
            mode, r["head_dim"], "yes" if r["causal"] else "no", r["seqlen"], r["batch"], r["heads"], r["heads_kv"],
            feats, cell(t["flashcore"]), cell(t["fa4"]), cell(t["cudnn"]), "%.2f" % ratio if ratio else "-"))
    print("\nfeature rows at fc/FA4 >= %.1f: %d / %d\n" % (bar, met, rows))
