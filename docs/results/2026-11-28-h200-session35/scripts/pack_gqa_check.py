"""Pack-GQA forward (kernels/hopper/fwd_kernel.cuh) against the unpacked path of the same build
(flashcore._attention._set_pack_gqa) and a float64 reference, on fresh random inputs with poisoned
outputs: groups 2 / 4 / 8 (packed) and 3 (not packed), causal and full, Sq != Sk (bottom-right
causal), S = 1, lengths off the tiles, a sink, softcap, the lse. Prints per case the max |packed -
unpacked| of O and lse, and each path's max error against float64 next to the exact output's own
rounding to the dtype. A case passes with no NaN, the packed error within 1.5x the unpacked path's
(the one the GPU suites hold to the float64 oracle) or 2x the rounding, and lse within 1e-2."""
import math
import torch
import flashcore
from flashcore import _attention

torch.manual_seed(1)


def reference(q, k, v, causal, scale, softcap, sink):
    # q (B, Sq, Hq, D), k/v (B, Sk, Hk, D): float64 math, FlashAttention's bottom-right causal.
    b, sq, hq, d = q.shape
    sk, hk = k.shape[1], k.shape[2]
    g = hq // hk
    qd, kd, vd = (x.double().transpose(1, 2) for x in (q, k, v))
    kd, vd = kd.repeat_interleave(g, 1), vd.repeat_interleave(g, 1)
    s = qd @ kd.transpose(-1, -2) * scale
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    if sink is not None:
        s = torch.cat([s, sink.double().view(1, hq, 1, 1).expand(b, hq, sq, 1)], -1)
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp(s - m)
    l = p.sum(-1, keepdim=True)
    if sink is not None:
        p = p[..., :-1]
    o = (p @ vd) / l
    lse = (m + torch.log(l)).squeeze(-1)
    return o.transpose(1, 2), lse


cases = []
for dt in (torch.bfloat16, torch.float16):
    for d in (64, 128):
        for hq, hk in ((8, 4), (16, 4), (16, 2), (6, 2)):
            for causal in (False, True):
                for sq, sk in ((1000, 1000), (333, 1000), (1, 700), (4096, 4096)):
                    cases.append((dt, d, hq, hk, causal, sq, sk, 0.0, False))
cases += [(torch.bfloat16, 128, 32, 8, True, 2048, 2048, 30.0, True), (torch.bfloat16, 64, 16, 8, False, 777, 513, 0.0, True),
          (torch.float16, 96, 8, 2, True, 1500, 1500, 0.0, False), (torch.bfloat16, 256, 8, 1, True, 900, 900, 0.0, False)]
worst = 0.0
for dt, d, hq, hk, causal, sq, sk, softcap, use_sink in cases:
    b = 2
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt)
    k, v = (torch.randn(b, sk, hk, d, device="cuda", dtype=dt) for _ in range(2))
    sink = torch.randn(hq, device="cuda", dtype=torch.float32) if use_sink else None
    scale = d ** -0.5
    outs = {}
    for packed in (True, False):
        _attention._set_pack_gqa(packed)
        torch.cuda.synchronize()
        o, lse = flashcore.flash_attn_func(q, k, v, causal=causal, softcap=softcap, learnable_sink=sink,
                                           return_attn_probs=True)[:2]
        torch.cuda.synchronize()
        outs[packed] = (o.clone(), lse.clone())
    _attention._set_pack_gqa(True)
    ro, rl = reference(q, k, v, causal, scale, softcap, sink)
    low_err = (ro.to(dt).double() - ro).abs().max().item()  # the exact output's rounding to the dtype
    diff_o = (outs[True][0].double() - outs[False][0].double()).abs().max().item()
    finite = torch.isfinite(rl)
    diff_l = (outs[True][1].double() - outs[False][1].double())[finite].abs().max().item() if finite.any() else 0.0
    errs = [(outs[pk][0].double() - ro).abs().max().item() for pk in (True, False)]
    nan = any(torch.isnan(outs[pk][0]).any().item() for pk in (True, False))
    lerr = (outs[True][1].double() - rl)[finite].abs().max().item() if finite.any() else 0.0
    ok = not nan and errs[0] <= max(1.5 * errs[1], 2 * low_err) + 1e-6 and lerr < 1e-2
    worst = max(worst, errs[0] / max(errs[1], 1e-9))
    print(f"{'OK ' if ok else 'BAD'} {str(dt)[6:]} d{d} Hq{hq}/Hk{hk} {'causal' if causal else 'full'} Sq{sq} Sk{sk}"
          f"{' cap' if softcap else ''}{' sink' if use_sink else ''}: packed-unpacked O {diff_o:.2e} lse {diff_l:.2e};"
          f" err packed {errs[0]:.2e} unpacked {errs[1]:.2e} rounding {low_err:.2e}; lse err {lerr:.1e}")
print("worst packed error / unpacked error:", round(worst, 3))
