"""The Hopper forward's dense masked tile order under a sliding window
(kernels/hopper/tile_scheduler.cuh), timed: window 4096 on S 16k causal against plain causal at
the same shape, kernel-only (CUDA-graph replay), TFLOP/s of the FLOPs actually needed (visible
query-key pairs). Issue 13's bar: window >= 90% of the plain causal kernel's TFLOP/s.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 tools/bench/window_order.py [--rounds 3]

Rows are timed --rounds times, interleaved, medians kept; run it for two builds in consecutive
processes to compare them (the window/causal ratio inside one run is what the bar asks for).
"""
import argparse
import statistics

import torch
import triton.testing as tt

import flashcore


def visible_pairs(sq, sk, left):
    i = torch.arange(sq, dtype=torch.float64)
    hi = i + sk - sq
    lo = (hi - left).clamp(min=0) if left >= 0 else torch.zeros_like(hi)
    return (hi - lo + 1).clamp(min=0).sum().item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    rows = []
    for d, heads in ((128, 16), (64, 32)):
        for left in (-1, 4096, 1024):
            for s in (16384, 8192):
                q, k, v = (torch.randn(1, s, heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                fn = (lambda q=q, k=k, v=v, left=left:
                      flashcore.attention(q, k, v, causal=True, window_size=(left, -1)))
                label = "d%d H%d S%d %s" % (d, heads, s, "causal" if left < 0 else "window %d" % left)
                rows.append((label, fn, 4 * heads * d * visible_pairs(s, s, left)))
    times = {label: [] for label, _, _ in rows}
    for _ in range(args.rounds):
        for label, fn, _ in rows:
            times[label].append(tt.do_bench_cudagraph(fn, rep=50))
    tf = {}
    for label, _, fl in rows:
        ms = statistics.median(times[label])
        tf[label] = fl / ms / 1e9
        print("%-28s %8.3f ms %7.1f TFLOP/s" % (label, ms, tf[label]))
    for label in tf:
        if "window" in label:
            base = label.split(" window")[0] + " causal"
            print("%-28s / causal %.3f" % (label, tf[label] / tf[base]))


if __name__ == "__main__":
    main()
