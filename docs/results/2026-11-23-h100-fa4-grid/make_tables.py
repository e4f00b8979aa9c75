"""Markdown tables of docs/results/2026-11-23-h100-fa4-grid.md from the run's JSON files:
    python3 make_tables.py paper_fwd.json paper_bwd.json feat_fwd.json feat_bwd.json
Kernel-only TFLOP/s (CUDA-graph replay) per backend; eager (do_bench) figures are in the JSON."""

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


def grid_table(doc):
    out = ["| row | " + " | ".join(n for _, n in NAMES) + " | fc/FA4 | fc/cuDNN | fc/FA2 | err fc | err FA4 |",
           "|---|" + "---|" * (len(NAMES) + 5)]
    for r in doc["records"]:
        fa4 = r["backends"].get("fa4", {})
        out.append(f"| {label(r)} | " + " | ".join(cell(r, b) for b, _ in NAMES)
                   + f" | {ratio(r.get('kernel_flashcore_over_fa4'))} | {ratio(r.get('kernel_flashcore_over_cudnn'))}"
                   f" | {ratio(r.get('kernel_flashcore_over_flash'))} | {r['max_abs_err'] if r['max_abs_err'] is None else format(r['max_abs_err'], '.1e')}"
                   f" | {'—' if fa4.get('max_abs_err') is None else format(fa4['max_abs_err'], '.1e')} |")
    if doc.get("skipped"):
        out.append(f"\n{len(doc['skipped'])} rows not reached (time budget): " + "; ".join(doc["skipped"]))
    return "\n".join(out)


def cost_table(doc):
    out = ["| feature row | against | flashcore feat/plain | FA4 feat/plain |", "|---|---|---|---|"]
    for c in doc.get("feature_costs", []):
        out.append(f"| {c['label']} | {c['baseline']} | {ratio(c['ratios'].get('flashcore'))} | "
                   f"{ratio(c['ratios'].get('fa4'))} |")
    return "\n".join(out)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        doc = load(path)
        print(f"### {path}: {doc['benchmark']}, {doc['env'].get('gpu')}, fa4 {doc['env'].get('fa4')}\n")
        print(grid_table(doc))
        if doc.get("feature_costs"):
            print("\n" + cost_table(doc))
        print()
