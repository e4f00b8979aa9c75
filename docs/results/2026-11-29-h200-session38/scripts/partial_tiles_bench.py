"""Session 38: forward rows whose sequences are not multiples of the tile, kernel-only (CUDA-graph
replay, triton.testing.do_bench_cudagraph), one build per process (run it once per build,
alternating): issue 13's mixed-length packed row (64 sequences of seeded lengths 100..4000, the
bench's features row) and its equal-length reference (4 x 4096), causal (and full at
--full_dims); dense causal batches (16k tokens) at --dense lengths. TFLOP/s of the FLOPs needed.
Prints: label, row, ms, TFLOP/s.

    PYTHONPATH=<py tree>:tools/bench python3 partial_tiles_bench.py --label new
"""
import argparse

import torch
import triton.testing as tt

from flashcore import _attention
from attention_config import Shape, varlen_lengths

ap = argparse.ArgumentParser()
ap.add_argument("--label", default="run")
ap.add_argument("--dims", default="64,128")
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rep", type=float, default=40)
ap.add_argument("--dense", default="1000,2000,3000,1024,4096", help="dense causal sequence lengths (16k tokens)")
ap.add_argument("--full_dims", default="64,128", help="head dims that also get the packed rows without a mask")
args = ap.parse_args()


def flops(lengths, heads, d, causal):
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lengths)
    return 4 * heads * d * pairs


for dt_name in args.dtypes.split(","):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dt_name]
    for d in [int(x) for x in args.dims.split(",")]:
        heads = 2048 // d
        rows = []
        for causal in (True, False) if str(d) in args.full_dims.split(",") else (True,):
            mixed = varlen_lengths(Shape("features", dt_name, d, causal, 4000, 64, heads, varlen="mixed"))
            rows += [("packed mixed64", mixed, causal), ("packed equal4x4096", [4096] * 4, causal)]
        rows += [("dense S%d" % s, [s] * (16384 // s), True) for s in [int(x) for x in args.dense.split(",")]]
        for kind, lengths, causal in rows:
            n = sum(lengths)
            m = max(lengths)
            if kind.startswith("packed"):
                cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
                q, k, v = (torch.randn(n, heads, d, device="cuda", dtype=dt) for _ in range(3))
                fn = lambda: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal, cu_seqlens_q=cu,
                                                       cu_seqlens_k=cu, max_seqlen_q=m, max_seqlen_k=m)
            else:
                q, k, v = (torch.randn(len(lengths), m, heads, d, device="cuda", dtype=dt) for _ in range(3))
                fn = lambda: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal)
            fn()
            ms = tt.do_bench_cudagraph(fn, rep=args.rep)
            label = "%s d%d %s %s" % (dt_name, d, "causal" if causal else "full", kind)
            print("%s %-40s %8.4f ms %7.1f TFLOP/s" % (args.label, label, ms, flops(lengths, heads, d, causal) / ms / 1e9),
                  flush=True)
