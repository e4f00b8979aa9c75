"""Float64 reference attention: the oracle every kernel is checked against.

Same contract as flashcore.attention: (batch, seqlen, heads, head_dim) tensors; causal masks
are aligned bottom-right (query i sees keys j <= i + seqlen_k - seqlen_q, as FlashAttention
>= 2.1); a query row that sees no key gets output 0 and log-sum-exp -inf.
"""

from __future__ import annotations

import math

import torch


def causal_mask(seqlen_q: int, seqlen_k: int, device=None) -> torch.Tensor:
    """Boolean (seqlen_q, seqlen_k) mask, True where query i may attend key j."""
    i = torch.arange(seqlen_q, device=device)[:, None]
    j = torch.arange(seqlen_k, device=device)[None, :]
    return j <= i + (seqlen_k - seqlen_q)


def attention_reference(q, k, v, *, causal=False, softmax_scale=None):
    """Returns (out, lse) computed in float64; out is float64 (batch, seqlen_q, heads, head_dim),
    lse is float64 (batch, heads, seqlen_q)."""
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(q.shape[-1])
    q64, k64, v64 = (t.to(torch.float64).transpose(1, 2) for t in (q, k, v))  # (b, h, s, d)
    scores = torch.matmul(q64, k64.transpose(-1, -2)) * softmax_scale
    if causal:
        mask = causal_mask(q.shape[1], k.shape[1], device=scores.device)
        scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)  # -inf for rows that see no key
    probs = torch.exp(scores - lse[..., None].clamp_min(torch.finfo(torch.float64).min))
    probs = torch.nan_to_num(probs, nan=0.0)  # rows with lse = -inf: exp(-inf - (-big)) = 0 anyway
    out = torch.matmul(probs, v64)
    return out.transpose(1, 2), lse


def attention_reference_grads(q, k, v, dout, *, causal=False, softmax_scale=None, dlse=None):
    """Float64 gradients (dq, dk, dv) of attention by autograd (not by the backward formulas
    the kernels use): of sum(out * dout) (+ sum(lse * dlse) when dlse is given). Rows that see
    no key contribute nothing (their out is the constant 0). Returned float64, same layouts."""
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(q.shape[-1])
    q64, k64, v64 = (t.detach().to(torch.float64).requires_grad_(True) for t in (q, k, v))
    qt, kt, vt = (t.transpose(1, 2) for t in (q64, k64, v64))  # (b, h, s, d)
    scores = torch.matmul(qt, kt.transpose(-1, -2)) * softmax_scale
    sees = torch.ones(q.shape[1], k.shape[1], dtype=torch.bool, device=scores.device)
    if causal:
        sees = causal_mask(q.shape[1], k.shape[1], device=scores.device)
    row_sees_any = sees.any(-1)[:, None]  # (sq, 1)
    # Empty rows get finite dummy scores (so no NaN in autograd) and are zeroed after softmax.
    scores = scores.masked_fill(~sees, float("-inf")).masked_fill(~row_sees_any, 0.0)
    probs = torch.softmax(scores, dim=-1) * row_sees_any
    out = torch.matmul(probs, vt).transpose(1, 2)
    loss = (out * dout.to(torch.float64)).sum()
    if dlse is not None:
        lse = torch.logsumexp(scores, dim=-1)  # (b, h, sq)
        loss = loss + (lse * dlse.to(torch.float64) * row_sees_any[:, 0]).sum()
    dq, dk, dv = torch.autograd.grad(loss, (q64, k64, v64))
    return dq, dk, dv
