"""dQ, dK, dV of one flashcore build against a float64 SDPA reference on a few dense shapes (ragged S,
causal and full, d64 / d96 / d128 / d192): the max error next to the reference's max, and NaN. A hang
or a missed conversion shows here before any timing."""
import torch, flashcore
torch.manual_seed(0)
for d, causal, s in [(128, False, 1024), (128, True, 1000), (64, True, 333), (64, False, 4096), (96, True, 700),
                     (192, True, 515), (80, False, 300)]:
    q, k, v = (torch.randn(2, s, 4, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    out = flashcore.attention(q, k, v, causal=causal)
    g = torch.randn_like(out)
    grads = torch.autograd.grad(out, (q, k, v), g)
    qr, kr, vr = (x.detach().double().transpose(1, 2).requires_grad_() for x in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(qr, kr, vr, is_causal=causal)
    refs = torch.autograd.grad(o, (qr, kr, vr), g.double().transpose(1, 2))
    errs = " ".join(f"{n} {(x.double() - r.transpose(1, 2)).abs().max().item():.2e}/{r.abs().max().item():.1e}"
                    f"{' NaN' if torch.isnan(x).any() else ''}" for n, x, r in zip(("dq", "dk", "dv"), grads, refs))
    print(f"d{d} causal={int(causal)} S{s}: {errs}")
