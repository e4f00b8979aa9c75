"""Session 48 (from session 47's varlen_mixed_cost.py): issue 13's mixed-length varlen cost, with a third batch, 64 sequences of the mixed batch's mean length (2,288: the same tokens, evened out), which separates what mixing lengths costs from what shorter sequences cost. Session 47's text: mixed-length varlen cost, kernel-only (CUDA-graph replay of the forward and
backward ops, triton.testing.do_bench_cudagraph), on attention.py's feature rows: 64 packed
sequences of 100..4000 tokens (the lengths of call 5's run) against 4 x 4096 packed, 32 heads at
d64 / 16 at d128, bf16, causal and not; `rounds` rounds alternating mixed and equal. TFLOP/s count
the FLOPs the math needs (per sequence: S^2, halved when causal). Prints each reading and the best
mixed / equal TFLOP/s ratio per row."""
import sys

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers torch.ops.flashcore)

MIXED = [1160, 1290, 2906, 3825, 2901, 3385, 3578, 3745, 860, 2770, 1044, 2828, 702, 3660, 1022, 2725, 3106, 867, 633, 390, 2276, 3564, 976, 3150, 1306, 222, 1867, 617, 3531, 2902, 2592, 159, 1229, 3517, 700, 447, 3668, 3352, 3416, 3738, 3401, 1174, 3484, 1947, 3150, 1888, 3988, 671, 3351, 3692, 1151, 1557, 3581, 1058, 2093, 3779, 3192, 2351, 2410, 1859, 2847, 1591, 3739, 1860]
MEAN = round(sum(MIXED) / len(MIXED))
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
dt = torch.bfloat16


def case(lengths, d, h, causal, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.cumsum(torch.tensor(lengths), 0)
    cu = cu.cuda()
    n, mx = int(cu[-1]), max(lengths)
    q, k, v, dout = (torch.randn(n, h, d, device="cuda", dtype=dt, generator=g) for _ in range(4))
    scale = d ** -0.5
    var = (None, cu, cu, None, mx, mx)  # sink, cu_seqlens_q / k, seqused_k, max_seqlen_q / k
    out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, *var)[:2]
    fwd = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, *var)
    bwd = lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False, -1, -1, 0.0,
                                                    *var)
    pairs = sum(l * l * (0.5 if causal else 1.0) for l in lengths) * h
    return fwd, bwd, 4 * pairs * d, 10 * pairs * d


for d in (64, 128):
    h = 2048 // d
    for causal in (False, True):
        best = {}
        for r in range(rounds):
            for name, lengths in (("mixed", MIXED), ("equal", [4096] * 4), ("mean", [MEAN] * len(MIXED))):
                fwd, bwd, ff, bf = case(lengths, d, h, causal, d + causal)
                for p, fn, f in (("fwd", fwd, ff), ("bwd", bwd, bf)):
                    ms = tt.do_bench_cudagraph(fn, rep=30)
                    tf = f / ms / 1e9
                    best[(name, p)] = max(best.get((name, p), 0.0), tf)
                    print(f"r{r} d{d} {'causal' if causal else 'full'} {name} {p} {ms:.4f} ms {tf:.1f} TFLOP/s", flush=True)
        for p in ("fwd", "bwd"):
            print(f"d{d} {'causal' if causal else 'full'} {p}: best mixed {best[('mixed', p)]:.1f}, equal "
                  f"{best[('equal', p)]:.1f}, mean-length {best[('mean', p)]:.1f} TFLOP/s, mixed / equal "
                  f"{best[('mixed', p)] / best[('equal', p)]:.3f}, mixed / mean-length "
                  f"{best[('mixed', p)] / best[('mean', p)]:.3f}", flush=True)
