"""Session 48: does a window side near INT_MAX behave as unbounded (FlashAttention's meaning: a
window wider than the sequence sees every key)? Row i's bound diag + right + 1 overflows int32 in
the kernels if the value is passed through unclamped. Compares (2^31-1, 2^31-1) with (-1, -1) and
(2^31-1, 0) with causal, forward and gradients, on sm90a and the sm80 PTX path, dense, varlen and
the KV-cache decode. Prints one line per case with the max abs difference (0 expected: same kernel
math, only the window's bound differs)."""
import torch

import flashcore
from flashcore import _attention

BIG = 2**31 - 1
torch.manual_seed(0)
dt = torch.bfloat16


def grads(fn, q, k, v):
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o = fn(q, k, v)
    o.backward(torch.ones_like(o))
    return [o.detach()] + [t.grad for t in (q, k, v)]


def diff(a, b):
    return max(float((x.float() - y.float()).abs().max()) if x.numel() else 0.0 for x, y in zip(a, b))


for arch in ("sm90a", "sm80_ptx"):
    _attention._set_forced_arch(None if arch == "sm90a" else arch)
    q, k, v = (torch.randn(2, 300, 4, 64, device="cuda", dtype=dt) for _ in range(3))
    for win, ref_kw in (((BIG, BIG), dict()), ((BIG, 0), dict(causal=True)), ((BIG, 5), dict(window_size=(2**20, 5)))):
        a = grads(lambda q, k, v: flashcore.flash_attn_func(q, k, v, window_size=win), q, k, v)
        b = grads(lambda q, k, v: flashcore.flash_attn_func(q, k, v, **ref_kw), q, k, v)
        print(f"{arch} dense window {win} vs {ref_kw}: max diff {diff(a, b):.3g}", flush=True)
    cu = torch.tensor([0, 100, 350, 600], dtype=torch.int32, device="cuda")
    qv, kv_, vv = (torch.randn(600, 4, 64, device="cuda", dtype=dt) for _ in range(3))
    a = grads(lambda q, k, v: flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250, window_size=(BIG, BIG)),
              qv, kv_, vv)
    b = grads(lambda q, k, v: flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 250, 250), qv, kv_, vv)
    print(f"{arch} varlen window (BIG, BIG) vs none: max diff {diff(a, b):.3g}", flush=True)
_attention._set_forced_arch(None)
kc, vc = (torch.randn(2, 1000, 4, 64, device="cuda", dtype=dt) for _ in range(2))
qd = torch.randn(2, 1, 4, 64, device="cuda", dtype=dt)
sl = torch.tensor([700, 900], dtype=torch.int32, device="cuda")
for win, kw in (((BIG, BIG), dict()), ((BIG, 0), dict(causal=True))):
    for ns in (1, 4):
        a = flashcore.flash_attn_with_kvcache(qd, kc, vc, cache_seqlens=sl, window_size=win, num_splits=ns)
        b = flashcore.flash_attn_with_kvcache(qd, kc, vc, cache_seqlens=sl, num_splits=ns, **kw)
        print(f"kvcache splits {ns} window {win} vs {kw}: max diff {diff([a], [b]):.3g}", flush=True)
