"""Session 47: issue 13's GQA cost in the backward, on issue 13's own rows (attention.py's feature
grid: Hq 32 over Hk 32 and Hk 8, causal, bf16; d64 and d128, S 4096 (B4) and 16384 (B1)): the
backward op's kernel-only time from CUDA-graph replay (triton.testing.do_bench_cudagraph), MHA and
GQA alternating, `rounds` rounds; prints each reading and the best GQA / MHA time ratio per row."""
import sys

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers torch.ops.flashcore)

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
dt = torch.bfloat16
for d in (64, 128):
    for s in (4096, 16384):
        b, hq = 16384 // s, 32
        best = {}
        for r in range(rounds):
            for hk in (32, 8):
                g = torch.Generator(device="cuda").manual_seed(s + d + hk)
                q = torch.randn(b, s, hq, d, device="cuda", dtype=dt, generator=g)
                k = torch.randn(b, s, hk, d, device="cuda", dtype=dt, generator=g)
                v = torch.randn(b, s, hk, d, device="cuda", dtype=dt, generator=g)
                dout = torch.randn(b, s, hq, d, device="cuda", dtype=dt, generator=g)
                scale = d ** -0.5
                out, lse = torch.ops.flashcore.attention_fwd(q, k, v, True, scale, False)[:2]
                bwd = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, True, scale, False)
                ms = tt.do_bench_cudagraph(bwd, rep=40)
                best[hk] = min(best.get(hk, 1e9), ms)
                print(f"r{r} d{d} S{s} B{b} Hq{hq} Hk{hk} causal bwd {ms:.4f} ms", flush=True)
                del q, k, v, dout, out, lse
        print(f"d{d} S{s}: best MHA {best[32]:.4f} ms, GQA {best[8]:.4f} ms, GQA time / MHA time {best[8] / best[32]:.3f}",
              flush=True)
