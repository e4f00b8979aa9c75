"""The backward suite's oracle (tests/gpu_attention_bwd_test.py): inputs, the poisoned kernel run,
torch's math SDPA gradients in the same dtype, the error measure and its floors, and the error log.

Oracle: float64 gradients by autograd (flashcore.reference.attention_reference_grads) on fresh
random inputs and a random dO. For each of dQ, dK, dV, flashcore's relative error must be at most
2x the error of torch's math SDPA gradients computed in the same dtype on the same inputs.
Gradients are poisoned (NaN) before every run and every element must be written; NaN never passes.

Relative error is ||x - ref|| / max(||ref||, 1e-3 * sqrt(numel), 1e-2 * ||C||). As in the
forward suite, the bound is 2 * max(torch's error, the dtype's unit roundoff) so that one rounding
of ours passes where torch's error is exactly 0.

The two floors only matter where the exact gradient (nearly) vanishes by cancellation.
dQ = scale * dS K and dK = scale * dS^T Q with dS = P o dP - P o D (dP = dO V^T, D = rowsum(dO o O)):
the gradient is the difference of two terms of size C = scale * (P o dP) K (for dQ) or
scale * (P o dP)^T Q (for dK). Any float32 implementation computes dP and D with relative
roundoff ~2^-24 of that size, in a different summation order, so where the two terms cancel its
absolute error is ~2^-24 * ||C|| * (accumulation growth), whatever ||ref|| is. The extreme case is
seqlen_k = 1: P = 1 and dP_i1 = dO_i . V_1 = dO_i . O_i = D_i, so dQ = dK = 0 exactly and torch
math SDPA (softmax backward of one element: P (dP - P dP) = 0) returns exact zeros, while a kernel
that forms dP by MMA and D by a separate dot product returns roundoff (~1e-5 absolute, summed
over 1000 query rows for dK). Normalising by 1e-2 * ||C|| (the size of the cancelling terms, not
of their difference) makes that a relative error of ~1e-5; in the other cases dS is not a
near-total cancellation (||ref|| / ||C|| is 0.56 .. 1.0 on every other SHAPES case, d64/d128,
causal or not, measured in float64; exactly 0 on the seqlen_k = 1 and S = 1 ones), so the floor is
inactive and the normal cases are not loosened. dV = P^T dO has no such cancellation.
"""

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashcore import _attention
from flashcore.reference import attention_reference_grads, causal_mask
from error_log import ErrorLog
from oracle_constants import DTYPES, SHAPES, UNIT_ROUNDOFF  # noqa: F401 (the bwd suite takes them from here)

ERRORS = ErrorLog("flashcore_bwd_errors.jsonl")


def record_error(entry):
    ERRORS.record(entry)


def print_error_summary():
    rows = ERRORS.rows()
    if rows is None:
        return
    flat = []
    for r in rows:
        for g in ("dq", "dk", "dv"):
            # The verdict is ours <= 2 * max(torch's error, the unit roundoff): the ratio to that
            # max (older records without it: to torch's error). A gradient whose exact value is 0
            # (k = 1: dS = 0) has torch error 0, so the roundoff floor is what judges it.
            judged = r[g][2] if len(r[g]) > 2 else r[g][1]
            flat.append(dict(r, grad=g, ours=r[g][0], theirs=r[g][1], ratio=r[g][0] / max(judged, 1e-30)))
    ERRORS.print_worst(
        flat, "\nflashcore bwd rel. error vs float64 / torch math SDPA grads (same dtype); ratio = ours /"
        " max(torch, unit roundoff), fails above 2; worst first:",
        lambda r: "  %-2s %-15s d%-3d %-6s b%dh%dq%dk%-5d flashcore %.3e  torch %.3e  ratio %.2f" % (
            r["grad"], r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", *r["shape"],
            r["ours"], r["theirs"], r["ratio"]), 10, "gradients checked")


def fresh(batch, heads, seqlen_q, seqlen_k, head_dim, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shapes = [(batch, seqlen_q, heads, head_dim), (batch, seqlen_k, heads, head_dim),
              (batch, seqlen_k, heads, head_dim), (batch, seqlen_q, heads, head_dim)]
    return tuple(torch.randn(s, generator=g, device="cuda", dtype=torch.float32).to(dtype) for s in shapes)


def run_bwd_poisoned(dout, q, k, v, causal, scale, deterministic=False):
    # As training runs it: the forward keeps O's rounding residual for the backward's D where rows
    # see at most _RESIDUAL_MAX_KEYS keys (flashcore.attention's policy for plain calls).
    keep = k.shape[1] <= _attention._RESIDUAL_MAX_KEYS
    out, lse, out_resid = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, None,
                                                            None, None, None, 0, 0, keep)
    dq, dk, dv = (torch.full_like(t, float("nan")) for t in (q, k, v))
    _attention.attention_bwd_into(dout, q, k, v, out, lse, dq, dk, dv, causal, scale, deterministic,
                                  out_resid=out_resid if keep else None)
    torch.cuda.synchronize()
    return dq, dk, dv


def torch_math_grads(q, k, v, dout, causal, scale):
    """torch's math SDPA gradients in the inputs' dtype (no fp32 upcast), on the rows that see a
    key (rows that see none contribute nothing; torch's handling of fully masked rows is not the
    point here): dq rows that see no key are 0."""
    sq, sk = q.shape[1], k.shape[1]
    first = max(0, sq - sk) if causal else 0
    qs = q[:, first:].detach().clone().requires_grad_(True)
    ks, vs = k.detach().clone().requires_grad_(True), v.detach().clone().requires_grad_(True)
    mask = causal_mask(sq - first, sk, device=q.device) if causal else None
    allowed = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    try:
        with sdpa_kernel(SDPBackend.MATH):
            out = F.scaled_dot_product_attention(qs.transpose(1, 2), ks.transpose(1, 2), vs.transpose(1, 2),
                                                 attn_mask=mask, scale=scale).transpose(1, 2)
            out.backward(dout[:, first:])
    finally:
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(allowed)
    dq = torch.zeros_like(q)
    dq[:, first:] = qs.grad
    return dq, ks.grad, vs.grad


def rel_err(x, ref, cancelling=0.0):
    floor = max(1e-3 * ref.numel() ** 0.5, 1e-2 * float(cancelling))
    return ((x.double() - ref).norm() / ref.norm().clamp_min(floor)).item()


def cancelling_term_norms(q, k, v, dout, causal, scale):
    """Float64 (||C_dq||, ||C_dk||, ||C_dv|| = 0): the sizes of the terms whose difference is dQ
    and dK (module docstring); same masking as attention_reference_grads."""
    qt, kt, vt, dot = (t.detach().to(torch.float64).transpose(1, 2) for t in (q, k, v, dout))
    scores = torch.matmul(qt, kt.transpose(-1, -2)) * scale
    sees = causal_mask(q.shape[1], k.shape[1], device=q.device) if causal else \
        torch.ones(q.shape[1], k.shape[1], dtype=torch.bool, device=q.device)
    row_sees_any = sees.any(-1)[:, None]
    scores = scores.masked_fill(~sees, float("-inf")).masked_fill(~row_sees_any, 0.0)
    probs = torch.softmax(scores, dim=-1) * row_sees_any
    p_dp = probs * torch.matmul(dot, vt.transpose(-1, -2))
    c_dq = (scale * torch.matmul(p_dp, kt)).norm().item()
    c_dk = (scale * torch.matmul(p_dp.transpose(-1, -2), qt)).norm().item()
    return c_dq, c_dk, 0.0


def check_grads(q, k, v, dout, causal, scale=None, deterministic=False):
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    ours = run_bwd_poisoned(dout, q, k, v, causal, scale, deterministic)
    for name, g in zip(("dq", "dk", "dv"), ours):
        assert not torch.isnan(g).any(), "NaN in %s (unwritten or computed)" % name
        assert torch.isfinite(g).all(), "inf in %s" % name
    ref = attention_reference_grads(q, k, v, dout, causal=causal, softmax_scale=scale)
    theirs = torch_math_grads(q, k, v, dout, causal, scale)
    if causal and q.shape[1] > k.shape[1]:
        empty = q.shape[1] - k.shape[1]
        assert (ours[0][:, :empty] == 0).all(), "dq rows that see no key must be 0"
    cancelling = cancelling_term_norms(q, k, v, dout, causal, scale)
    result = {}
    for name, o, t, r, c in zip(("dq", "dk", "dv"), ours, theirs, ref, cancelling):
        e_ours, e_theirs = rel_err(o, r, c), rel_err(t, r, c)
        bound = 2 * max(e_theirs, UNIT_ROUNDOFF[q.dtype])
        assert e_ours <= bound, "%s: flashcore rel err %.3g > 2x torch math SDPA's %.3g" % (name, e_ours, e_theirs)
        result[name] = (e_ours, e_theirs, bound / 2)  # bound / 2: what the ratio below is judged against
    return result


