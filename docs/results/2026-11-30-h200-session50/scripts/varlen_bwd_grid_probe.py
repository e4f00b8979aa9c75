"""Session 50, call 1: what the packed-varlen backward's grid costs beyond its works (issue 13's
mixed-length row). The backward launches n_blocks(max_seqlen_k) x (batch x k/v heads) CTAs; key
blocks past a short sequence's end are empty CTAs (43% of the grid on the 64 x 100..4000 batch).
Here the same tensors are timed with max_seqlen raised (only empty CTAs added) and with the batch's
sequences reordered (the launch order follows the batch index). Kernel-only: CUDA-graph replay of
the backward op (triton.testing.do_bench_cudagraph); torch.profiler gives each kernel's share.
Prints ms per variant, best of `rounds`."""
import sys

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers torch.ops.flashcore)

MIXED = [1160, 1290, 2906, 3825, 2901, 3385, 3578, 3745, 860, 2770, 1044, 2828, 702, 3660, 1022, 2725, 3106, 867, 633, 390, 2276, 3564, 976, 3150, 1306, 222, 1867, 617, 3531, 2902, 2592, 159, 1229, 3517, 700, 447, 3668, 3352, 3416, 3738, 3401, 1174, 3484, 1947, 3150, 1888, 3988, 671, 3351, 3692, 1151, 1557, 3581, 1058, 2093, 3779, 3192, 2351, 2410, 1859, 2847, 1591, 3739, 1860]
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
dt = torch.bfloat16


def case(lengths, d, h, causal, max_seqlen):
    g = torch.Generator(device="cuda").manual_seed(d + causal)
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.cumsum(torch.tensor(lengths), 0)
    cu = cu.cuda()
    n = int(cu[-1])
    q, k, v, dout = (torch.randn(n, h, d, device="cuda", dtype=dt, generator=g) for _ in range(4))
    scale = d ** -0.5
    var = (None, cu, cu, None, max_seqlen, max_seqlen)
    out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, *var)[:2]
    return lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False, -1, -1,
                                                     0.0, *var)


def kernel_shares(fn):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
    rows = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            rows[e.name[:60]] = rows.get(e.name[:60], 0.0) + e.device_time_total / 3
    return sorted(rows.items(), key=lambda kv: -kv[1])


mx = max(MIXED)
variants = [
    ("given_max", MIXED, mx),
    ("given_2max", MIXED, 2 * mx),
    ("given_4max", MIXED, 4 * mx),
    ("longest_first", sorted(MIXED, reverse=True), mx),
    ("shortest_first", sorted(MIXED), mx),
]
for d, causal in ((64, True), (64, False), (128, True)):
    h = 2048 // d
    best = {}
    fns = {name: case(lengths, d, h, causal, m) for name, lengths, m in variants}
    for r in range(rounds):
        for name, _, _ in variants:
            ms = tt.do_bench_cudagraph(fns[name], rep=30)
            best[name] = min(best.get(name, 1e9), ms)
            print(f"r{r} d{d} {'causal' if causal else 'full'} {name} {ms:.4f} ms", flush=True)
    base = best["given_max"]
    for name, lengths, m in variants:
        nb = (m + 127) // 128
        print(f"d{d} {'causal' if causal else 'full'} {name}: best {best[name]:.4f} ms ({best[name] / base:.4f} of "
              f"given_max), grid {nb * len(lengths)} key blocks a head (128-key blocks)", flush=True)
    for kname, us in kernel_shares(fns["given_max"])[:4]:
        print(f"  d{d} {'causal' if causal else 'full'} given_max kernel {us:9.1f} us  {kname}", flush=True)
    del fns
    torch.cuda.empty_cache()
