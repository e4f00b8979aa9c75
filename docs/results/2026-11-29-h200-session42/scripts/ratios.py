"""Session 42: per-row ratios of an fa4_grid_h100.sh JSON (flashcore over FA4, cuDNN, FA2):
python3 ratios.py paper_bwd.json > ratios.txt"""
import json
import statistics
import sys

recs = json.load(open(sys.argv[1]))["records"]
rows = []
for r in recs:
    b = r["backends"]
    t = {k: v["tflops"] for k, v in b.items() if v.get("tflops")}
    rows.append((r, t, t["flashcore"] / t["fa4"], t["flashcore"] / t["cudnn"], t["flashcore"] / t["flash"]))
fa4 = [x[2] for x in rows]
cud = [x[3] for x in rows]
fa2 = [x[4] for x in rows]
print("rows %d fc/fa4 %.3f-%.3f median %.3f; >=0.9: %d, >=1.0: %d" % (
    len(rows), min(fa4), max(fa4), statistics.median(fa4), sum(x >= 0.9 for x in fa4), sum(x >= 1.0 for x in fa4)))
print("fc/cudnn %.3f-%.3f median %.3f >=1.0: %d" % (min(cud), max(cud), statistics.median(cud), sum(x >= 1.0 for x in cud)))
print("fc/fa2 %.2f-%.2f" % (min(fa2), max(fa2)))
for r, t, a, c, _ in rows:
    print("%s d%d %s S%d fc %.1f fa4 %.1f cudnn %.1f  %.3f %.3f" % (
        r["dtype"], r["head_dim"], "causal" if r["causal"] else "noncausal", r["seqlen"], t["flashcore"], t["fa4"],
        t["cudnn"], a, c))
