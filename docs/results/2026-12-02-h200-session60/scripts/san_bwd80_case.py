"""compute-sanitizer and correctness case for the backward's skipped zero slice (head dims 72 and 80
on the 96 kernel: S^T and dP^T over 5 k16 slices of 6): q/k and v head dims (72, 72), (80, 80),
(88, 88) (which keeps the slice), (80, 96) and (96, 80) (one GEMM skips, the other not), causal and
full, both dtypes, Sq 300 / Sk 420, GQA 8 / 2, default and deterministic. Unsanitized: every
gradient finite and within 3e-2 (relative to its largest reference value) of the float32 reference."""
import torch

import flashcore

g = torch.Generator(device="cuda").manual_seed(8096)
worst = 0.0


def ref_attention(q, k, v, causal):
    qf, kf, vf = (t.float().transpose(1, 2) for t in (q, k, v))
    kf, vf = kf.repeat_interleave(4, 1), vf.repeat_interleave(4, 1)
    mask = torch.ones(300, 420, dtype=torch.bool, device="cuda").tril(120) if causal else None
    return torch.nn.functional.scaled_dot_product_attention(qf, kf, vf, attn_mask=mask).transpose(1, 2)


for dtype in (torch.bfloat16, torch.float16):
    for causal in (False, True):
        for d, dv in ((72, 72), (80, 80), (88, 88), (80, 96), (96, 80)):
            q = torch.randn(1, 300, 8, d, device="cuda", dtype=dtype, generator=g)
            k = torch.randn(1, 420, 2, d, device="cuda", dtype=dtype, generator=g)
            v = torch.randn(1, 420, 2, dv, device="cuda", dtype=dtype, generator=g)
            do = torch.randn(1, 300, 8, dv, device="cuda", dtype=dtype, generator=g)
            leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
            ref_attention(*leaves, causal).backward(do.float())
            for det in (False, True):
                ins = [t.detach().clone().requires_grad_() for t in (q, k, v)]
                flashcore.flash_attn_func(*ins, causal=causal, deterministic=det).backward(do)
                for name, a, r in zip("qkv", ins, leaves):
                    assert torch.isfinite(a.grad).all(), (dtype, causal, d, dv, det, name)
                    err = ((a.grad.float() - r.grad).abs().max() / r.grad.abs().max()).item()
                    worst = max(worst, err)
                    assert err < 3e-2, (dtype, causal, d, dv, det, name, err)
torch.cuda.synchronize()
print("bwd zero-slice case: worst relative |grad - ref| %.3g" % worst)
