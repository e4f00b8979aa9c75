"""Session 63: packed (varlen) forward rows for ab_table.py: issue 13's mixed batch (64 sequences of
100..4000 tokens, tools/bench/attention_config.py's seed 13), the packed 4 x 4096 batch it is held
against, and 64 sequences of the mixed batch's mean length; kernel-only (CUDA-graph replay),
TFLOP/s of the FLOPs needed. Prints `LABEL fwd DTYPE dD ROW MS ms TFLOPS TFLOP/s`."""
import argparse
import random

import torch
import triton.testing as tt

import flashcore

ap = argparse.ArgumentParser()
ap.add_argument("--label", default="run")
ap.add_argument("--dtype", default="bf16")
ap.add_argument("--dims", default="64,128")
ap.add_argument("--causal", default="causal,full")
ap.add_argument("--rep", type=float, default=40.0)
args = ap.parse_args()
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
rng = random.Random(13)
mixed = [rng.randint(100, 4000) for _ in range(64)]
batches = {"mixed64": mixed, "equal4x4096": [4096] * 4, "mean64": [sum(mixed) // 64] * 64}
for d in (int(x) for x in args.dims.split(",")):
    h = 2048 // d
    for tag in args.causal.split(","):
        causal = tag == "causal"
        for name, lengths in batches.items():
            total = sum(lengths)
            cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), device="cuda", dtype=torch.int32)
            q, k, v = (torch.randn(total, h, d, device="cuda", dtype=dt) for _ in range(3))
            m = max(lengths)
            fn = lambda: flashcore.flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=causal)
            pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lengths)
            flops = 4 * h * d * pairs
            ms = tt.do_bench_cudagraph(fn, rep=args.rep)
            print("%s fwd %s d%d %s %s %.4f ms %.1f TFLOP/s" % (args.label, args.dtype, d, name, tag, ms, flops / ms / 1e9),
                  flush=True)
