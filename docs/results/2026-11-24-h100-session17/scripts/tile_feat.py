"""Window 4096 (S16k causal) and softcap 30 (S4k causal) at d64 on each forward tile, against plain
causal on the tile the policy picks: kernel-only (graph replay), interleaved rounds, one process."""
import torch, triton.testing as tt
import flashcore
from flashcore import _attention
dt = torch.bfloat16
rows = []
for s, wl, sc in ((16384, 4096, 0.0), (16384, -1, 0.0), (4096, -1, 30.0), (4096, -1, 0.0)):
    d = 64; b, h = 16384 // s, 2048 // d
    g = torch.Generator(device="cuda").manual_seed(s + wl)
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
    wr = 0 if wl >= 0 else -1
    pairs = sum(min(i, wl) + 1 for i in range(s)) if wl >= 0 else s * (s + 1) // 2
    flops = 4 * b * h * pairs * d
    fn = (lambda q=q, k=k, v=v, wl=wl, wr=wr, sc=sc: torch.ops.flashcore.attention_fwd(q, k, v, True, d ** -0.5, False, wl, wr, sc, None))
    rows.append((f"d64 S{s} win{wl} cap{sc:g}", fn, flops))
best = {}
for rnd in range(3):
    for name, fn, flops in rows:
        for tile in (None, "default", "long_rows"):
            _attention._set_forced_fwd_tile(tile)
            fn()
            ms = tt.do_bench_cudagraph(fn, rep=50)
            tf = flops / ms / 1e9
            best[(name, tile)] = max(best.get((name, tile), 0), tf)
            print(rnd, name, tile, f"{ms*1e3:.1f} us {tf:.1f} TFLOP/s", flush=True)
_attention._set_forced_fwd_tile(None)
print("best TFLOP/s over rounds")
for name, _, _ in rows:
    print(name, " ".join(f"{t}={best[(name, t)]:.1f}" for t in (None, "default", "long_rows")))
