"""Oracle for flashcore.flash_attn_with_kvcache, written independently of py/flashcore/kvcache.py:
the expected cache after an append, rotary in float64, and KV-cache attention in float64 (the
oracle) or in the inputs' dtype (the "same math in low precision" whose error bounds ours,
FlashAttention's rule). Works on CPU or GPU tensors; loops over the batch for clarity."""

from __future__ import annotations

import math

import torch


def rotary64(x, cos, sin, positions, interleaved):
    """Rotary embedding in float64 (rounded to x's dtype by the caller) of x (B, S, H, D) at
    positions (B, S)."""
    rot = 2 * cos.shape[1]
    out = x.double().clone()
    c = cos.double()[positions.long()].unsqueeze(2)
    s = sin.double()[positions.long()].unsqueeze(2)
    if interleaved:
        x1, x2 = out[..., 0:rot:2].clone(), out[..., 1:rot:2].clone()
        out[..., 0:rot:2] = x1 * c - x2 * s
        out[..., 1:rot:2] = x1 * s + x2 * c
    else:
        half = rot // 2
        x1, x2 = out[..., :half].clone(), out[..., half:rot].clone()
        out[..., :half] = x1 * c - x2 * s
        out[..., half:rot] = x1 * s + x2 * c
    return out


def cache_positions(b, n, block_table, page_size, cache_row):
    """(index tuple into a (rows/pages, S, H, D) cache) of positions 0..n-1 of batch row b."""
    pos = torch.arange(n)
    if block_table is None:
        return (torch.full((n,), cache_row, dtype=torch.long), pos)
    pages = block_table[b].long().cpu()[pos // page_size]
    return (pages, pos % page_size)


def expected_cache(k_cache, k_new, cache_seqlens, block_table, cache_batch_idx):
    """The cache after writing k_new (B, S_new, Hk, D) at cache_seqlens[b].. of each row."""
    out = k_cache.clone()
    if k_new is None:
        return out
    page_size = k_cache.shape[1]
    for b in range(k_new.shape[0]):
        start = int(cache_seqlens[b])
        row = int(cache_batch_idx[b]) if cache_batch_idx is not None else b
        idx = cache_positions(b, start + k_new.shape[1], block_table, page_size, row)
        sel = (idx[0][start:].to(out.device), idx[1][start:].to(out.device))
        out[sel] = k_new[b]
    return out


def kvcache_attention(q, k_cache, v_cache, seqlen_k_total, *, block_table, cache_batch_idx, cache_leftpad,
                      softmax_scale, window, softcap, dtype=torch.float64):
    """Attention of q (B, Sq, H, D) over each row's keys leftpad..seqlen_k_total[b]-1 of the cache
    (already appended), computed in `dtype` (float64: the oracle; q's dtype: the low-precision
    baseline with scores and P rounded to it, softmax in float32). window = (left, right) with
    causal as right = 0, bottom-right aligned. Returns out (B, Sq, H, D) in `dtype` and lse
    float64 (B, H, Sq); rows that see no key: 0 and -inf."""
    batch, sq, heads, d = q.shape
    hk = k_cache.shape[2]
    group = heads // hk
    page_size = k_cache.shape[1]
    out = torch.zeros((batch, sq, heads, d), dtype=dtype, device=q.device)
    lse = torch.full((batch, heads, sq), -math.inf, dtype=torch.float64, device=q.device)
    for b in range(batch):
        lp = int(cache_leftpad[b]) if cache_leftpad is not None else 0
        total = int(seqlen_k_total[b])
        row = int(cache_batch_idx[b]) if cache_batch_idx is not None else b
        idx = cache_positions(b, total, block_table, page_size, row)
        sel = (idx[0][lp:].to(q.device), idx[1][lp:].to(q.device))
        kb = k_cache[sel].to(dtype)  # (sk, Hk, D)
        vb = v_cache[sel].to(dtype)
        sk = total - lp
        if sk <= 0:
            continue
        kb = kb.repeat_interleave(group, dim=1).transpose(0, 1)  # (H, sk, D)
        vb = vb.repeat_interleave(group, dim=1).transpose(0, 1)
        qb = q[b].to(dtype).transpose(0, 1)  # (H, Sq, D)
        s = torch.matmul(qb, kb.transpose(1, 2))  # rounded to dtype in the low-precision run
        s = s.to(torch.float64 if dtype == torch.float64 else torch.float32)
        if softcap > 0:
            s = softcap * torch.tanh(s * softmax_scale / softcap)
        else:
            s = s * softmax_scale
        t = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        diag = t + sk - sq
        visible = torch.ones((sq, sk), dtype=torch.bool, device=q.device)
        if window[0] >= 0:
            visible &= j >= diag - window[0]
        if window[1] >= 0:
            visible &= j <= diag + window[1]
        s = s.masked_fill(~visible, -math.inf)
        row_lse = torch.logsumexp(s.double(), dim=-1)  # (H, Sq)
        seen = visible.any(dim=-1)  # (Sq,)
        p = torch.softmax(s, dim=-1).nan_to_num(0.0).to(dtype)
        ob = torch.matmul(p, vb)  # (H, Sq, D)
        ob = ob * seen[None, :, None]
        out[b] = ob.transpose(0, 1)
        lse[b] = torch.where(seen[None, :], row_lse, torch.full_like(row_lse, -math.inf))
    return out, lse
