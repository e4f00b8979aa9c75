"""flashcore / FlashAttention-4 (and / cuDNN) per row of tools/bench/attention.py JSONs (call 3):
forward from CUDA-graph replay (graph_tflops; the eager figure where no graph ran), backward from
the sum of each backend's kernels per call (profiled_tflops, torch.profiler) beside the eager call.
usage: fa4_ratios.py FWD.json BWD.json"""
import json, sys


def label(r):
    f = "+".join(r["features"]) if r.get("features") else ""
    return "%s d%d %s S%d B%d H%d%s %s" % (r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", r["seqlen"],
                                        r["batch"], r["heads"], "" if r["heads_kv"] == r["heads"] else "/%d" % r["heads_kv"], f)


def tf(rec, be, key):
    b = rec["backends"].get(be) or {}
    return b.get(key) or None


def table(path, keys):
    d = json.load(open(path))
    out = {}
    for r in d["records"]:
        row = {}
        for be in ("flashcore", "fa4", "cudnn"):
            row[be] = next((tf(r, be, k) for k in keys if tf(r, be, k)), None)
        out[label(r)] = row
    return out


fwd = table(sys.argv[1], ("graph_tflops", "tflops"))
bwd = table(sys.argv[2], ("profiled_tflops", "tflops"))
bwd_eager = table(sys.argv[2], ("tflops",))
fmt = lambda x: "-" if x is None else "%.3f" % x
ratio = lambda a, b: None if not a or not b else a / b
print("| row | fwd fc TFLOP/s | fwd fc/FA4 | fwd fc/cuDNN | bwd fc TFLOP/s | bwd fc/FA4 | bwd fc/FA4 eager | bwd fc/cuDNN |")
print("|---|---|---|---|---|---|---|---|")
lo = {"fwd": [], "bwd": []}
for k in fwd:
    f, b, be = fwd[k], bwd.get(k, {}), bwd_eager.get(k, {})
    rf, rb = ratio(f["flashcore"], f["fa4"]), ratio(b.get("flashcore"), b.get("fa4"))
    if rf: lo["fwd"].append(rf)
    if rb: lo["bwd"].append(rb)
    print("| %s | %.1f | %s | %s | %s | %s | %s | %s |" % (
        k.strip(), f["flashcore"] or 0, fmt(rf), fmt(ratio(f["flashcore"], f["cudnn"])),
        "%.1f" % b["flashcore"] if b.get("flashcore") else "-", fmt(rb),
        fmt(ratio(be.get("flashcore"), be.get("fa4"))), fmt(ratio(b.get("flashcore"), b.get("cudnn")))))
for p, v in lo.items():
    if v:
        print("%s fc/FA4: %.3f-%.3f over %d rows, %d >= 1.0, %d >= 0.9, %d >= 0.8" % (
            p, min(v), max(v), len(v), sum(x >= 1.0 for x in v), sum(x >= 0.9 for x in v), sum(x >= 0.8 for x in v)))
