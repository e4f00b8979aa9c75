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


# --- every feature of issue 13 (GQA, packed varlen, sliding window, softcap, sinks) ----------

def window_mask(seqlen_q: int, seqlen_k: int, window_size=(-1, -1), causal=False, device=None) -> torch.Tensor:
    """Boolean (seqlen_q, seqlen_k) mask, True where query i may attend key j: FlashAttention's
    sliding window, bottom-right aligned, i + sk - sq - left <= j <= i + sk - sq + right; -1 is
    unbounded; causal sets right to 0."""
    left, right = window_size
    if causal:
        right = 0
    i = torch.arange(seqlen_q, device=device)[:, None]
    j = torch.arange(seqlen_k, device=device)[None, :]
    diag = i + (seqlen_k - seqlen_q)
    allowed = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool, device=device)
    if left >= 0:
        allowed &= j >= diag - left
    if right >= 0:
        allowed &= j <= diag + right
    return allowed


class FeatureReference:
    """What features_reference returns: out (q's layout), lse ((batch, heads, seqlen_q) dense,
    (heads, total_q) packed: -inf for a row that sees no key and has no sink), and with dout the
    gradients dq, dk, dv (the layouts of q, k, v) and dsink ((heads,) or None). Rows of packed
    tensors past cu_seqlens[-1] hold 0 everywhere (they are no part of the result). All in the
    compute dtype."""

    def __init__(self, out, lse, dq=None, dk=None, dv=None, dsink=None):
        self.out, self.lse, self.dq, self.dk, self.dv, self.dsink = out, lse, dq, dk, dv, dsink


def _sequences(q, k, cu_seqlens_q, cu_seqlens_k, seqused_k):
    """[(q rows, k rows used)] per sequence, as slices of the first dimension (dense: the batch
    index) -- host values."""
    if cu_seqlens_q is None:
        used = [k.shape[1]] * q.shape[0] if seqused_k is None else seqused_k.tolist()
        return [(b, slice(0, min(k.shape[1], u)), b) for b, u in enumerate(used)]
    cu_q, cu_k = cu_seqlens_q.tolist(), cu_seqlens_k.tolist()
    used = [None] * (len(cu_q) - 1) if seqused_k is None else seqused_k.tolist()
    seqs = []
    for b in range(len(cu_q) - 1):
        n_k = cu_k[b + 1] - cu_k[b] if used[b] is None else min(cu_k[b + 1] - cu_k[b], used[b])
        seqs.append((slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b] + n_k), None))
    return seqs


def _one_sequence(q, k, v, scale, causal, window_size, softcap, sink):
    """q (sq, Hq, D), k/v (sk, Hk, D) in the compute dtype. Returns out (sq, Hq, D), lse (Hq, sq)
    (-inf where a row sees nothing), row_any (Hq, sq)."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # the reference may expand GQA; the kernels must not
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, k) * scale
    if softcap > 0:
        scores = softcap * torch.tanh(scores / softcap)
    allowed = window_mask(q.shape[0], k.shape[0], window_size, causal, device=q.device)
    logits = scores.masked_fill(~allowed, float("-inf"))
    if sink is not None:  # one more logit per row that takes probability but carries no value
        logits = torch.cat([logits, sink.to(logits.dtype)[:, None, None].expand(-1, q.shape[0], 1)], dim=-1)
    row_any = torch.isfinite(logits).any(-1)  # (Hq, sq)
    # Rows that see nothing get finite dummy logits (no NaN in autograd) and zero probabilities.
    logits = logits.masked_fill(~row_any[..., None], 0.0)
    probs = torch.softmax(logits, dim=-1) * row_any[..., None]
    lse = torch.logsumexp(logits, dim=-1).masked_fill(~row_any, float("-inf"))
    out = torch.einsum("hqk,khd->qhd", probs[..., :k.shape[0]], v)
    return out, lse, row_any


def features_reference(q, k, v, *, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, sink=None,
                       cu_seqlens_q=None, cu_seqlens_k=None, seqused_k=None, dout=None, dlse=None,
                       compute_dtype=torch.float64) -> FeatureReference:
    """Attention with every feature, computed directly from the definitions in compute_dtype
    (float64: the oracle; the inputs' low-precision dtype: "the same math" whose error bounds the
    kernels'), gradients by autograd -- never the kernels' formulas.

    Dense: q (B, Sq, Hq, D), k/v (B, Sk, Hk, D); packed: q (total_q, Hq, D), k/v (total_k, Hk, D)
    with cu_seqlens_q/k (B + 1,); v may have its own head dim Dv (out and dout then have it). seqused_k (B,): keys used per sequence (the masks align to it).
    sink: (Hq,) logits. With dout (q's layout), also the gradients of
    sum(out * dout) + sum(lse * dlse) (dlse in lse's layout, over rows that see something)."""
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(q.shape[-1])
    want_grads = dout is not None
    with torch.enable_grad():
        q_c, k_c, v_c = (t.detach().to(compute_dtype).requires_grad_(want_grads) for t in (q, k, v))
        sink_c = None if sink is None else sink.detach().to(compute_dtype).requires_grad_(want_grads)
        varlen = cu_seqlens_q is not None
        heads = q.shape[-2]
        outs, lses, anys = [], [], []
        loss = 0.0
        for q_rows, k_rows, b in _sequences(q, k, cu_seqlens_q, cu_seqlens_k, seqused_k):
            if varlen:
                qs, ks, vs = q_c[q_rows], k_c[k_rows], v_c[k_rows]
            else:
                qs, ks, vs = q_c[b], k_c[b][k_rows], v_c[b][k_rows]
            o, lse, row_any = _one_sequence(qs, ks, vs, softmax_scale, causal, window_size, softcap, sink_c)
            outs.append(o)
            lses.append(lse)
            anys.append(row_any)
            if want_grads:  # per sequence: padding rows of dout / dlse (possibly NaN) are never touched
                loss = loss + (o * (dout[q_rows] if varlen else dout[b]).to(compute_dtype)).sum()
                if dlse is not None:
                    d = (dlse[:, q_rows] if varlen else dlse[b]).to(compute_dtype)
                    loss = loss + (lse.masked_fill(~row_any, 0.0) * d.masked_fill(~row_any, 0.0)).sum()
        if varlen:
            n_valid = sum(o.shape[0] for o in outs)
            pad = q.shape[0] - n_valid  # rows past cu_seqlens_q[-1]: no part of the result
            out = torch.cat(outs + [q_c.new_zeros((pad, heads, v.shape[-1]))], dim=0)  # v's head dim
            lse = torch.cat(lses + [q_c.new_zeros((heads, pad))], dim=1)
            row_any = torch.cat(anys + [torch.zeros(heads, pad, dtype=torch.bool, device=q.device)], dim=1)
        else:
            out, lse, row_any = torch.stack(outs), torch.stack(lses), torch.stack(anys)
        if not want_grads:
            return FeatureReference(out.detach(), lse.detach())
        inputs = (q_c, k_c, v_c) + ((sink_c,) if sink_c is not None else ())
        if not isinstance(loss, torch.Tensor):  # no sequence has a row
            loss = q_c.sum() * 0.0
        grads = torch.autograd.grad(loss, inputs, allow_unused=True)
        grads = [torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]
    return FeatureReference(out.detach(), lse.detach(), grads[0], grads[1], grads[2],
                            grads[3] if sink_c is not None else None)
