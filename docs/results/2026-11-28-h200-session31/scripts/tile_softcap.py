"""Session 31: the sm90a forward's two d64 / d96 tiles (128-row "default", 192-row "long_rows")
forced in one process, with and without softcap: kernel-only CUDA-graph time (triton.testing
do_bench_cudagraph), paper grid (16k tokens, hidden 2048), TFLOP/s of the FLOPs the math needs.
Usage: tile_softcap.py LABEL DTYPE DIMS SEQLENS ROUNDS"""
import sys

import torch
import triton.testing as tt

import flashcore  # noqa: F401
from flashcore import _attention

label, dts, dims, seqlens, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dts]
for r in range(rounds):
    for d in map(int, dims.split(",")):
        for s in map(int, seqlens.split(",")):
            b, h = 16384 // s, 2048 // d
            g = torch.Generator(device="cuda").manual_seed(s + d)
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
            for causal in (True, False):
                pairs = b * h * (s * (s + 1) // 2 if causal else s * s)
                for sc in (0.0, 30.0):
                    for tile in ("default", "long_rows"):
                        _attention._set_forced_fwd_tile(tile)
                        try:
                            fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5, False, -1,
                                                                           0 if causal else -1, sc, None)
                            ms = tt.do_bench_cudagraph(fn, rep=30)
                        finally:
                            _attention._set_forced_fwd_tile(None)
                        print(f"{label}_r{r} fwd {dts} d{d} S{s} {'causal' if causal else 'full'} sc{sc:g} {tile} "
                              f"{ms:.4f} ms {4 * pairs * d / ms / 1e9:.1f} TFLOP/s", flush=True)
