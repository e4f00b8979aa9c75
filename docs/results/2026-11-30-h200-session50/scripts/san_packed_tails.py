"""Session 50: a compute-sanitizer case for the backward's packed tails (BwdParams::zero_packed_tails)
and the main kernels' early exit of key blocks past a sequence: packed batches with rows past
cu_seqlens[-1] (NaN inputs there) and a short sequence in a long batch, through the backward op
called directly (no front-end check, so the kernels zero the tails), at head dims 64 (fragment-order
preprocess), 128 (row order), 256 (the wide kernel) and 40 (predicated on 64), GQA 4, causal and
not, deterministic and not. Checks the tails are zero and the rest finite."""
import torch

import flashcore  # noqa: F401

dev = "cuda"
for d, causal, det in ((64, True, False), (64, False, True), (128, True, True), (128, False, False),
                       (256, True, False), (40, False, False)):
    lq, lk = (17, 0, 300, 64, 1), (33, 5, 290, 0, 77)
    pad_q, pad_k = 7, 3
    tq, tk = sum(lq), sum(lk)
    cu_q = torch.tensor([0] + torch.tensor(lq).cumsum(0).tolist(), dtype=torch.int32, device=dev)
    cu_k = torch.tensor([0] + torch.tensor(lk).cumsum(0).tolist(), dtype=torch.int32, device=dev)
    h, hk = 8, 2
    q = torch.randn(tq + pad_q, h, d, device=dev, dtype=torch.bfloat16)
    k = torch.randn(tk + pad_k, hk, d, device=dev, dtype=torch.bfloat16)
    v = torch.randn(tk + pad_k, hk, d, device=dev, dtype=torch.bfloat16)
    dout = torch.randn(tq + pad_q, h, d, device=dev, dtype=torch.bfloat16)
    for t, n in ((q, tq), (k, tk), (v, tk), (dout, tq)):
        t[n:] = float("nan")
    var = (None, cu_q, cu_k, None, max(lq), max(lk))
    out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5, det, -1, -1, 0.0, *var)[:2]
    dq, dk, dv = torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, d ** -0.5, det, -1, -1,
                                                   0.0, *var)[:3]
    torch.cuda.synchronize()
    assert (dq[tq:] == 0).all() and (dk[tk:] == 0).all() and (dv[tk:] == 0).all(), (d, causal, det)
    assert torch.isfinite(dq[:tq]).all() and torch.isfinite(dk[:tk]).all() and torch.isfinite(dv[:tk]).all()
    print("ok d%d causal=%s det=%s" % (d, causal, det), flush=True)
