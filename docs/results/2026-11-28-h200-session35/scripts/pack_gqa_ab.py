"""Pack-GQA's forward A/B in one process and one build: each GQA row timed with packing on and off
(flashcore._attention._set_pack_gqa), alternating, kernel-only (CUDA-graph replay,
triton.testing.do_bench_cudagraph), best of --rounds. Rows: 16k tokens, Hq = 2048 / d query heads,
groups of --groups, d64 / d128, S --seqlens, causal and full. Prints TFLOP/s (causal FLOPs halved)
and packed / unpacked."""
import argparse
import torch
import triton.testing as tt
import flashcore  # noqa: F401
from flashcore import _attention

ap = argparse.ArgumentParser()
ap.add_argument("--dtype", default="bf16")
ap.add_argument("--dims", default="64,128")
ap.add_argument("--groups", default="4,8")
ap.add_argument("--seqlens", default="1024,4096,16384")
ap.add_argument("--rounds", type=int, default=2)
ap.add_argument("--rep", type=float, default=30)
args = ap.parse_args()
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
res = {}
for d in (int(x) for x in args.dims.split(",")):
    for g in (int(x) for x in args.groups.split(",")):
        for s in (int(x) for x in args.seqlens.split(",")):
            for causal in (False, True):
                b, hq = 16384 // s, 2048 // d
                q = torch.randn(b, s, hq, d, device="cuda", dtype=dt)
                k, v = (torch.randn(b, s, hq // g, d, device="cuda", dtype=dt) for _ in range(2))
                fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5, False)
                flops = 4 * b * hq * s * s * d // (2 if causal else 1)
                key = f"fwd {args.dtype} d{d} G{g} S{s} {'causal' if causal else 'full'}"
                for _ in range(args.rounds):
                    for packed in (True, False):
                        _attention._set_pack_gqa(packed)
                        fn()
                        ms = tt.do_bench_cudagraph(fn, rep=args.rep)
                        best = res.setdefault(key, {}).get(packed, 0.0)
                        res[key][packed] = max(best, flops / ms / 1e9)
                _attention._set_pack_gqa(True)
                r = res[key]
                print(f"{key:34s} packed {r[True]:6.1f} unpacked {r[False]:6.1f} TFLOP/s  {r[True] / r[False]:.3f}", flush=True)
