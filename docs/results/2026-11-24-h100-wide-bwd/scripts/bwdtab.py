"""Markdown table of a bench bwd JSON: flashcore / fa4 / cudnn / flash TFLOP/s and ratios (eager autograd)."""
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    bk = [b for b in ("flashcore", "fa4", "cudnn", "flash") if any(b in r["backends"] for r in d["records"])]
    print("| dtype | D | causal | S | " + " | ".join(bk) + " | fc/cuDNN" + (" | fc/FA4" if "fa4" in bk else "") + " | fc/FA2 |")
    print("|---" * (4 + len(bk) + 2 + ("fa4" in bk)) + "|")
    for r in d["records"]:
        t = {b: r["backends"].get(b, {}).get("tflops") for b in bk}
        f = t["flashcore"]
        ratio = lambda b: "%.2f" % (f / t[b]) if t.get(b) else "-"
        cells = ["%.0f" % t[b] if t[b] else "-" for b in bk]
        print("| %s | %d | %s | %d | %s | %s%s | %s |" % (r["dtype"], r["head_dim"], "yes" if r["causal"] else "no", r["seqlen"],
              " | ".join(cells), ratio("cudnn"), (" | " + ratio("fa4")) if "fa4" in bk else "", ratio("flash")))
    print()
