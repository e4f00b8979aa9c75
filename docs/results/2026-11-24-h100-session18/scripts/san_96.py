"""compute-sanitizer target for the 80-row head-dim-96 backward (and 80 / 88 on it): full, causal and windowed, dense
and packed, GQA, a sink, deterministic and not, fp16 and bf16, lengths that are not multiples of 80 or 128, more
tiles than SMs on one shape. Every gradient checked finite (outputs poisoned with NaN first)."""
import torch
import flashcore
from flashcore import _attention

_attention._set_poison_outputs(True)
torch.manual_seed(0)
dev = "cuda"


def run(dtype, b, sq, sk, hq, hk, d, det, sink, varlen, causal=False, window=(-1, -1)):
    q = torch.randn(b, sq, hq, d, device=dev, dtype=dtype, requires_grad=True)
    k = torch.randn(b, sk, hk, d, device=dev, dtype=dtype, requires_grad=True)
    v = torch.randn(b, sk, hk, d, device=dev, dtype=dtype, requires_grad=True)
    s = torch.randn(hq, device=dev, dtype=torch.float32, requires_grad=True) if sink else None
    if varlen:
        lens_q = [sq - 37, sq]
        lens_k = [sk, sk - 51]
        cq = torch.tensor([0, lens_q[0], lens_q[0] + lens_q[1]], device=dev, dtype=torch.int32)
        ck = torch.tensor([0, lens_k[0], lens_k[0] + lens_k[1]], device=dev, dtype=torch.int32)
        qp = torch.randn(sum(lens_q), hq, d, device=dev, dtype=dtype, requires_grad=True)
        kp = torch.randn(sum(lens_k), hk, d, device=dev, dtype=dtype, requires_grad=True)
        vp = torch.randn(sum(lens_k), hk, d, device=dev, dtype=dtype, requires_grad=True)
        o = flashcore.flash_attn_varlen_func(qp, kp, vp, cq, ck, max(lens_q), max(lens_k), deterministic=det,
                                             learnable_sink=s, causal=causal, window_size=window)
        o.backward(torch.randn_like(o))
        grads = [qp.grad, kp.grad, vp.grad]
    else:
        o = flashcore.flash_attn_func(q, k, v, deterministic=det, learnable_sink=s, causal=causal, window_size=window)
        o.backward(torch.randn_like(o))
        grads = [q.grad, k.grad, v.grad]
    if sink:
        grads.append(s.grad)
    for g in grads:
        assert g is not None and torch.isfinite(g).all(), "non-finite gradient"


HD = 96
for dtype in (torch.bfloat16, torch.float16):
  for HD in ((96, 88) if dtype == torch.bfloat16 else (96, 80)):
    for det in (False, True):
        run(dtype, 2, 203, 171, 4, 2, HD, det, False, False)
        run(dtype, 1, 97, 300, 2, 1, HD, det, True, False)
        run(dtype, 1, 250, 190, 4, 2, HD, det, True, True)
        run(dtype, 2, 203, 171, 4, 2, HD, det, False, False, causal=True)
        run(dtype, 1, 170, 260, 2, 2, HD, det, True, False, causal=True)
        run(dtype, 1, 250, 190, 4, 2, HD, det, True, True, window=(60, 5))
for HD in (96, 80):
    run(torch.bfloat16, 1, 1200, 1200, 16, 16, HD, False, False, False)  # > 132 CTAs
torch.cuda.synchronize()
print("san_96 done")
