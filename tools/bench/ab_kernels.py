"""Kernel-only A/B rows of one flashcore build (CUDA-graph replay, triton.testing.do_bench_cudagraph),
for comparing builds in alternating processes (tools/bench/ab_kernels.sh runs it once per build and
tabulates). Rows: the paper grid (16k tokens, hidden 2048) at --dims x --seqlens, causal and full,
forward and backward (preprocess + main + dQ convert, through the custom ops), optionally the
deterministic backward; then issue 13's feature cost rows (window 4096 at S 16k causal, softcap 30
at S 4k causal; with --sink a learnable sink). --eager times eager calls instead (triton.testing.do_bench:
launches and host work included). Prints: label, pass, dtype, row, ms, TFLOP/s.
Numbers from it go into docs/results/ with the GPU and the builds they compared."""
import argparse
import itertools

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers the torch.ops.flashcore custom ops)

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--label", default="run")
ap.add_argument("--rep", type=float, default=60.0)
ap.add_argument("--dtype", default="bf16")
ap.add_argument("--dims", default="64,128", help="head dims; d:dv for a pair (v's own head dim, e.g. 192:128)")
ap.add_argument("--passes", default="fwd,bwd")
ap.add_argument("--nofeatures", action="store_true")
ap.add_argument("--det", action="store_true", help="also the deterministic backward (bwd_det)")
ap.add_argument("--sink", action="store_true", help="feature rows with and without a learnable sink")
ap.add_argument("--seqlens", default="1024,4096,16384")
ap.add_argument("--softcaps", default="0", help="the grid once per softcap (0: none); rows with one say sc<value>")
ap.add_argument("--eager", action="store_true", help="time eager calls (triton.testing.do_bench) instead of CUDA-graph "
                "replay; rows' pass names end in _eager")
ap.add_argument("--groups", default="1", help="query heads per k/v head (GQA), the grid once per group; rows with one > 1 "
                "say g<group>")
args = ap.parse_args()
dims = [tuple(int(y) for y in x.split(":")) if ":" in x else (int(x), int(x)) for x in args.dims.split(",")]
passes = args.passes.split(",")
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
softcaps = [float(x) for x in args.softcaps.split(",")]
seqlens = [int(x) for x in args.seqlens.split(",")]
groups = [int(x) for x in args.groups.split(",")]
bench = tt.do_bench if args.eager else tt.do_bench_cudagraph  # one timer for every row below
timing = "_eager" if args.eager else ""  # appended to the rows' pass names
for (d, dv), sc, grp, s, causal in itertools.product(dims, softcaps, groups, seqlens, (False, True)):
    b, h = 16384 // s, 2048 // d
    g = torch.Generator(device="cuda").manual_seed(s + d + causal)
    q = torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g)
    k = torch.randn(b, s, h // grp, d, device="cuda", dtype=dt, generator=g)
    v = torch.randn(b, s, h // grp, dv, device="cuda", dtype=dt, generator=g)
    dout = torch.randn(b, s, h, dv, device="cuda", dtype=dt, generator=g)
    scale = d ** -0.5
    fa = (-1, -1, sc) if sc else ()  # window (unbounded), softcap: attention_fwd / _bwd's positional tail
    out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, *fa)[:2]
    fwd = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, *fa)
    bwd = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False, *fa)
    bwd_det = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, True, *fa)
    # FLOPs the math needs: forward S and P V, backward S, dP, dV, dK, dQ (d = dv: 4 and 10 x).
    pairs = b * h * s * s * (0.5 if causal else 1.0)
    flops, bwd_flops = 2 * pairs * (d + dv), 2 * pairs * (3 * d + 2 * dv)
    runs = [("fwd", fwd, flops), ("bwd", bwd, bwd_flops)] + ([("bwd_det", bwd_det, bwd_flops)] if args.det else [])
    for name, fn, f in runs:
        if name.split("_")[0] not in passes:
            continue
        ms = bench(fn, rep=args.rep)
        dim = (f"d{d}" if d == dv else f"d{d}v{dv}") + (f"sc{sc:g}" if sc else "") + (f"g{grp}" if grp > 1 else "")
        print(f"{args.label} {name}{timing} {args.dtype} {dim} S{s} {'causal' if causal else 'full'} {ms:.4f} ms {f / ms / 1e9:.1f} TFLOP/s", flush=True)

# Feature rows (issue 13's cost bars): window 4096 at S16k causal, softcap 30 at S4k causal; with
# --sink also a learnable sink at S4k causal (wl = -2 marks it).
for d in ([] if args.nofeatures else (64, 128)):
    for s, wl, sc in ((16384, 4096, 0.0), (4096, -1, 30.0)) + (((4096, -2, 0.0), (4096, -3, 0.0)) if args.sink else ()):
        b, h = 16384 // s, 2048 // d
        g = torch.Generator(device="cuda").manual_seed(s + d + 7)
        q, k, v, dout = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(4))
        scale = d ** -0.5
        sink = torch.randn(h, device="cuda", dtype=torch.float32, generator=g) if wl == -2 else None
        tag_sink = wl <= -2
        wl = -1 if wl < -1 else wl
        wr = 0 if wl >= 0 else -1
        out, lse = torch.ops.flashcore.attention_fwd(q, k, v, True, scale, False, wl, wr, sc, sink)[:2]
        fwd = lambda: torch.ops.flashcore.attention_fwd(q, k, v, True, scale, False, wl, wr, sc, sink)
        bwd = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, True, scale, False, wl, wr, sc, sink)
        if wl >= 0:
            pairs = sum(min(i, wl) + 1 for i in range(s))
        else:
            pairs = s * (s + 1) // 2
        flops = 4 * b * h * pairs * d
        tag = ("sink" if sink is not None else "nosink") if tag_sink else f"window{wl}" if wl >= 0 else f"softcap{sc:g}"
        for name, fn, f in (("fwd", fwd, flops), ("bwd", bwd, 2.5 * flops)):
            if name not in passes:
                continue
            ms = bench(fn, rep=args.rep)
            print(f"{args.label} {name}{timing} {args.dtype} d{d} S{s} {tag} {ms:.4f} ms {f / ms / 1e9:.1f} TFLOP/s", flush=True)
