"""Markdown tables of docs/results/2026-11-23-h100-fa4-grid.md from the run's JSON files:
    python3 make_tables.py paper_fwd.json paper_bwd.json feat_fwd.json feat_bwd.json
Forward: kernel-only TFLOP/s (CUDA-graph replay) per backend. Backward: eager TFLOP/s (do_bench of
the autograd backward; the backward cannot be captured in a CUDA graph by the bench, so its records
hold no graph figure), ratios computed here from those."""

import json
import sys

NAMES = (("flashcore", "flashcore"), ("fa4", "FA4"), ("cudnn", "cuDNN"), ("flash", "FA2"))


def load(path):
    with open(path) as f:
        return json.load(f)


def cell(r, b, key="graph_tflops"):
    e = r["backends"].get(b)
    if e is None:
        return "—"
    if e.get("unsupported"):
        return "n/a"
    v = e.get(key)
    if v is None:
        return "err" if e.get("error") else "—"
    mark = "" if e.get("within_tolerance") is not False else " (wrong)"
    return f"{v:.0f}{mark}"


def ratio(x):
    return "—" if x is None else f"{x:.2f}"


def label(r):
    feats = ",".join(r.get("features") or []) or "plain"
    c = "causal" if r["causal"] else "full"
    hk = r.get("heads_kv") or r["heads"]
    return f"{r['dtype']} d{r['head_dim']} {c} S{r['seqlen']} B{r['batch']} H{r['heads']}/{hk} {feats}"


def key_of(doc):
    """graph_tflops where the run has them (forward), else the eager tflops (backward)."""
    has_graph = any(e.get("graph_tflops") for r in doc["records"] for e in r["backends"].values())
    return "graph_tflops" if has_graph else "tflops"


def eager_ratio(r, b, key):
    a, c = r["backends"].get("flashcore", {}).get(key), r["backends"].get(b, {}).get(key)
    return a / c if a and c else None


def grid_table(doc):
    key = key_of(doc)
    out = [f"TFLOP/s: {'kernel-only (CUDA-graph replay)' if key == 'graph_tflops' else 'eager (do_bench)'}\n", "| row | " + " | ".join(n for _, n in NAMES) + " | fc/FA4 | fc/cuDNN | fc/FA2 | err fc | err FA4 |",
           "|---|" + "---|" * (len(NAMES) + 5)]
    for r in doc["records"]:
        fa4 = r["backends"].get("fa4", {})
        out.append(f"| {label(r)} | " + " | ".join(cell(r, b, key) for b, _ in NAMES)
                   + "".join(f" | {ratio(r.get('kernel_flashcore_over_' + b) if key == 'graph_tflops' else eager_ratio(r, b, key))}"
                             for b in ("fa4", "cudnn", "flash"))
                   + f" | {r['max_abs_err'] if r['max_abs_err'] is None else format(r['max_abs_err'], '.1e')}"
                   f" | {'—' if fa4.get('max_abs_err') is None else format(fa4['max_abs_err'], '.1e')} |")
    if doc.get("skipped"):
        out.append(f"\n{len(doc['skipped'])} rows not reached (time budget): " + "; ".join(doc["skipped"]))
    return "\n".join(out)


def bench_label(r):
    """The bench's own row label (the one feature_costs names)."""
    c = "causal" if r["causal"] else "noncausal"
    feats = "".join(" " + f for f in (r.get("features") or []))
    return f"{r['dtype']} D{r['head_dim']} {c} S{r['seqlen']} B{r['batch']} H{r['heads']}{feats}"


def cost_table(doc):
    """Each feature row's TFLOP/s over its plain row's; the bench's own ratios (kernel-only) where it
    has them, else from the eager figures of the two records."""
    key = key_of(doc)
    by_label = {bench_label(r): r for r in doc["records"]}

    def own(c, b):
        if key == "graph_tflops":
            return c["ratios"].get(b)
        feat, base = by_label.get(c["label"]), by_label.get(c["baseline"])
        a = feat and feat["backends"].get(b, {}).get(key)
        z = base and base["backends"].get(b, {}).get(key)
        return a / z if a and z else None

    out = ["| feature row | against | flashcore feat/plain | FA4 feat/plain |", "|---|---|---|---|"]
    for c in doc.get("feature_costs", []):
        out.append(f"| {c['label']} | {c['baseline']} | {ratio(own(c, 'flashcore'))} | {ratio(own(c, 'fa4'))} |")
    return "\n".join(out)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        doc = load(path)
        print(f"### {path}: {doc['benchmark']}, {doc['env'].get('gpu')}, fa4 {doc['env'].get('fa4')}\n")
        print(grid_table(doc))
        if doc.get("feature_costs"):
            print("\n" + cost_table(doc))
        print()
