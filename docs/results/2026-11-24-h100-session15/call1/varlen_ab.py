"""A/B in one process: the packed backward with gradient buffers zeroed whole (old, by patching
_checks.packed_ends to None) vs only past cu_seqlens[-1] (new). Eager autograd backward (triton
do_bench), interleaved rounds; the feature rows of the FA4 grid (varlen 4x4096, 64 mixed 100..4000)."""
import random, sys
import torch, triton.testing as tt
import flashcore
from flashcore import _checks
real = _checks.packed_ends
def lengths(kind):
    if kind == "equal":
        return [4096] * 4
    rng = random.Random(0)
    return [rng.randint(100, 4000) for _ in range(64)]
rows = []
for d in (64, 128):
    for kind in ("equal", "mixed"):
        for causal in (False, True):
            rows.append((d, kind, causal))
res = {}
for rnd in range(3):
    for d, kind, causal in rows:
        L = lengths(kind); h = 2048 // d
        cu = torch.tensor([0] + list(torch.tensor(L).cumsum(0).tolist()), dtype=torch.int32, device="cuda")
        tot = sum(L)
        g = torch.Generator(device="cuda").manual_seed(d + causal)
        q, k, v, do = (torch.randn(tot, h, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(4))
        q.requires_grad_(); k.requires_grad_(); v.requires_grad_()
        out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, max(L), max(L), causal=causal)
        pairs = sum(l * (l + 1) // 2 if causal else l * l for l in L)
        flops = 2.5 * 4 * h * pairs * d
        for mode in ("old", "new"):
            _checks.packed_ends = (lambda *a: None) if mode == "old" else real
            fn = lambda: torch.autograd.grad(out, (q, k, v), do, retain_graph=True)
            ms = tt.do_bench(fn, warmup=50, rep=400)
            res.setdefault((d, kind, causal, mode), []).append(flops / ms / 1e9)
        _checks.packed_ends = real
        del out, q, k, v, do
for d, kind, causal in rows:
    o, n = max(res[(d, kind, causal, "old")]), max(res[(d, kind, causal, "new")])
    print(f"bwd bf16 d{d} varlen-{kind} {'causal' if causal else 'full'}  old {o:.1f}  new {n:.1f} TFLOP/s  new/old {n/o:.3f}", flush=True)
