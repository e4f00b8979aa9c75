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
