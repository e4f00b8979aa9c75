"""Per-kernel GPU time of each backend's backward (attention.py --profile_kernels JSON,
"kernel_us"): side passes (preprocess / D, memsets, dQ convert) against the main kernel."""
import json
import sys


def kind(name):
    n = name.lower()
    if "memset" in n:
        return "memset"
    if "preprocess" in n or "dot_do_o" in n:
        return "pre"
    if "postprocess" in n or "convert" in n:
        return "post"
    return "main"


def main(path):
    for r in json.load(open(path))["records"]:
        row = f"{r['dtype']} d{r['head_dim']} {'causal' if r['causal'] else 'full'} S{r['seqlen']}"
        cells = []
        for b in ("flashcore", "fa4", "cudnn"):
            agg = {}
            for n, us in (r["backends"][b].get("kernel_us") or {}).items():
                agg[kind(n)] = agg.get(kind(n), 0.0) + us
            side = agg.get("pre", 0) + agg.get("post", 0) + agg.get("memset", 0)
            cells.append(f"{b} main {agg.get('main', 0):7.1f} side {side:6.1f}")
        print(f"{row:22s} | " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1])
