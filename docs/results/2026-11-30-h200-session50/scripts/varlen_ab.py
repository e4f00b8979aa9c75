"""Session 50: packed-varlen rows for an A/B of builds in alternating processes (ab_table.py's line
shape). Kernel-only: CUDA-graph replay of the forward and backward ops (triton.testing.
do_bench_cudagraph), whose backward under capture cannot read cu_seqlens on the host (the path that
zeroed all of dq / dk / dv before this session). Batches: issue 13's mixed 64 sequences of
100..4000 tokens (146,440 tokens; session 47's lengths), 4 x 4096 (the equal-length reference of
sessions 24-47), and 64 x 2288 (equal lengths with the mixed batch's tokens and sequence count).
32 heads at d64, 16 at d128, bf16 (--dtype). TFLOP/s count the FLOPs the math needs (per sequence S^2,
halved when causal)."""
import argparse

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers torch.ops.flashcore)

MIXED = [1160, 1290, 2906, 3825, 2901, 3385, 3578, 3745, 860, 2770, 1044, 2828, 702, 3660, 1022, 2725, 3106, 867, 633, 390, 2276, 3564, 976, 3150, 1306, 222, 1867, 617, 3531, 2902, 2592, 159, 1229, 3517, 700, 447, 3668, 3352, 3416, 3738, 3401, 1174, 3484, 1947, 3150, 1888, 3988, 671, 3351, 3692, 1151, 1557, 3581, 1058, 2093, 3779, 3192, 2351, 2410, 1859, 2847, 1591, 3739, 1860]
BATCHES = {"mixed": MIXED, "eq4096x4": [4096] * 4, "eq2288x64": [2288] * 64}

ap = argparse.ArgumentParser()
ap.add_argument("--label", default="run")
ap.add_argument("--dims", default="64,128")
ap.add_argument("--passes", default="fwd,bwd")
ap.add_argument("--batches", default="mixed,eq4096x4,eq2288x64")
ap.add_argument("--rep", type=float, default=30.0)
ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
args = ap.parse_args()
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
for d in (int(x) for x in args.dims.split(",")):
    h = 2048 // d
    for causal in (False, True):
        for bname in args.batches.split(","):
            lengths = BATCHES[bname]
            g = torch.Generator(device="cuda").manual_seed(d + causal)
            cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
            cu[1:] = torch.cumsum(torch.tensor(lengths), 0)
            cu = cu.cuda()
            n, mx = int(cu[-1]), max(lengths)
            q, k, v, dout = (torch.randn(n, h, d, device="cuda", dtype=dt, generator=g) for _ in range(4))
            scale = d ** -0.5
            var = (None, cu, cu, None, mx, mx)
            out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, *var)[:2]
            fwd = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, *var)
            bwd = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False, -1,
                                                            -1, 0.0, *var)
            pairs = sum(l * l * (0.5 if causal else 1.0) for l in lengths) * h
            for p, fn, f in (("fwd", fwd, 4 * pairs * d), ("bwd", bwd, 10 * pairs * d)):
                if p not in args.passes.split(","):
                    continue
                ms = tt.do_bench_cudagraph(fn, rep=args.rep)
                print(f"{args.label} {p} {args.dtype} d{d} {bname} {'causal' if causal else 'full'} {ms:.4f} ms "
                      f"{f / ms / 1e9:.1f} TFLOP/s", flush=True)
            del q, k, v, dout, out, lse
            torch.cuda.empty_cache()
