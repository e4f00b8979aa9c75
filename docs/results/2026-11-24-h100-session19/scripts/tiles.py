"""Session 19: the sm90a forward's tiles forced, one process (kernel-only, CUDA-graph replay):
default vs long_rows per row, interleaved 3 rounds, best of each."""
import sys
import torch
import triton.testing as tt
import flashcore
from flashcore import _attention as A

dims = [int(x) for x in sys.argv[1].split(",")]
seqlens = [int(x) for x in sys.argv[2].split(",")]
dts = sys.argv[3].split(",") if len(sys.argv) > 3 else ["bf16"]
best = {}
for rnd in range(3):
    for dtn in dts:
        dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
        for d in dims:
            for s in seqlens:
                for causal in (False, True):
                    b, h = max(1, 16384 // s), 2048 // d
                    g = torch.Generator(device="cuda").manual_seed(s + d)
                    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
                    flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
                    for tile in ("default", "long_rows"):
                        A._set_forced_fwd_tile(tile)
                        fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5)
                        ms = tt.do_bench_cudagraph(fn, rep=25)
                        key = (dtn, d, s, "causal" if causal else "full", tile)
                        best[key] = max(best.get(key, 0), flops / ms / 1e9)
                    A._set_forced_fwd_tile(None)
rows = sorted({k[:4] for k in best})
for r in rows:
    a, l = best[r + ("default",)], best[r + ("long_rows",)]
    print("%s d%d S%d %-6s default %6.1f long_rows %6.1f long/default %.3f" % (r + (a, l, l / a)))
