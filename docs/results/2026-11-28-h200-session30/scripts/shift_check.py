"""Session 30: the forward at head dims whose rows start off 32-byte sectors (odd heads of a dense
B2 H4 tensor at 72, 200, 216, 248) against a float64 reference; prints the max error per case."""
import torch
import flashcore

for d in (72, 200, 216, 248):
    for causal in (False, True):
        g = torch.Generator(device="cuda").manual_seed(d + causal)
        q, k, v = (torch.randn(2, 300, 4, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
        out = flashcore.attention(q, k, v, causal=causal)
        ref = torch.nn.functional.scaled_dot_product_attention(
            *(x.double().transpose(1, 2) for x in (q, k, v)), is_causal=causal).transpose(1, 2)
        err = (out.double() - ref).abs().max().item()
        print(f"check d{d} causal={causal} max_err {err:.3e} {'OK' if err < 2e-2 else 'BAD'}", flush=True)
