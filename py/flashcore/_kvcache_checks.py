"""flashcore.flash_attn_with_kvcache's argument checks (kvcache.py): shapes, dtypes and layouts on
the host, and the length checks that read cache_seqlens / cache_leftpad / block_table (eager
calls only; the decode launch takes most of them from one kernel, kernels/decode/check_kernel.cuh,
and _raise_on_length_facts turns its facts into the same errors)."""

from __future__ import annotations

import functools
import math

import torch

from flashcore._attention import _DTYPE_NAMES

_NAME = "flashcore.flash_attn_with_kvcache"


def _check_tensor(name, t, dims, dtypes=None, fn=_NAME):
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, got %s" % (fn, name, type(t).__name__))
    if t.dim() != dims:
        raise ValueError("%s: %s must be %d-D, got shape %s" % (fn, name, dims, tuple(t.shape)))
    if dtypes is not None and t.dtype not in dtypes:
        raise TypeError("%s: %s must be %s, got %s"
                        % (fn, name, " or ".join(str(d).replace("torch.", "") for d in dtypes), t.dtype))


def _check_rows_aligned(name, t, fn=_NAME):
    """The kernels copy 16-byte chunks: unit stride on head_dim, other strides and the base
    address multiples of 16 bytes."""
    if t.stride(-1) != 1 or any(s % 8 for s in t.stride()[:-1]) or t.data_ptr() % 16:
        raise ValueError("%s: %s must have a unit stride on its last dimension and 16-byte aligned rows "
                         "(strides %s)" % (fn, name, tuple(t.stride())))


def _check_index_vector(name, t, batch, fn=_NAME):
    _check_tensor(name, t, 1, (torch.int32,), fn)
    if t.shape[0] != batch:
        raise ValueError("%s: %s must have one entry per batch row (%d), got shape %s"
                         % (fn, name, batch, tuple(t.shape)))


def _check_cache(k_cache, v_cache, block_table, dtype, head_dim, fn=_NAME):
    """Checks k_cache / v_cache / block_table; returns (paged, page_size or None, heads_kv)."""
    for name, t in (("k_cache", k_cache), ("v_cache", v_cache)):
        _check_tensor(name, t, 4, tuple(_DTYPE_NAMES), fn)
        if t.dtype != dtype:
            raise TypeError("%s: %s must have q's dtype %s, got %s" % (fn, name, dtype, t.dtype))
        if t.shape[-1] != head_dim:
            raise ValueError("%s: %s has head_dim %d but q has %d" % (fn, name, t.shape[-1], head_dim))
        _check_rows_aligned(name, t, fn)
    if k_cache.shape != v_cache.shape:
        raise ValueError("%s: k_cache and v_cache must have one shape, got %s and %s"
                         % (fn, tuple(k_cache.shape), tuple(v_cache.shape)))
    if block_table is None:
        return False, None, k_cache.shape[2]
    _check_tensor("block_table", block_table, 2, None, fn)
    if block_table.dtype != torch.int32:
        raise TypeError("%s: block_table must be int32, got %s" % (fn, block_table.dtype))
    if block_table.stride(1) != 1:
        raise ValueError("%s: block_table must have a unit stride on its last dimension" % fn)
    return True, k_cache.shape[1], k_cache.shape[2]


def _check_heads(q_heads, heads_kv, fn=_NAME):
    if heads_kv < 1 or q_heads % heads_kv != 0:
        raise ValueError("%s: q's heads (%d) must be a multiple of the cache's kv heads (%d)"
                         % (fn, q_heads, heads_kv))


def _check_scalars(cache_seqlens, softcap, num_splits):
    """flash_attn_with_kvcache's scalar arguments' types and ranges (before any conversion)."""
    if isinstance(cache_seqlens, bool) or not (cache_seqlens is None or isinstance(cache_seqlens, (int, torch.Tensor))):
        raise TypeError("%s: cache_seqlens must be an int or an int32 tensor, got %s"
                        % (_NAME, type(cache_seqlens).__name__))
    if not isinstance(softcap, (int, float)) or isinstance(softcap, bool) or softcap < 0 or math.isnan(softcap):
        raise ValueError("%s: softcap must be a float >= 0 (0 disables), got %r" % (_NAME, softcap))
    if isinstance(num_splits, bool) or not isinstance(num_splits, int) or num_splits < 0:
        raise ValueError("%s: num_splits must be an int >= 0 (0: heuristic, 1: no split), got %r"
                         % (_NAME, num_splits))


def _check_window(window_size, causal, fn=_NAME):
    if not (isinstance(window_size, (tuple, list)) and len(window_size) == 2
            and all(isinstance(w, int) and not isinstance(w, bool) for w in window_size)):
        raise TypeError("%s: window_size must be a pair of ints (left, right), got %r" % (fn, window_size))
    left, right = window_size
    if causal:
        right = 0
    return (left if left >= 0 else -1), (right if right >= 0 else -1)


@functools.lru_cache(maxsize=64)
def _page_starts(pages: int, page_size: int, device: torch.device) -> torch.Tensor:
    """The first positions of a block-table row's pages (kept: one op fewer a checked call)."""
    return torch.arange(pages, device=device, dtype=torch.int64) * page_size


def _check_lengths(cache_seqlens, seqlen_new, capacity, cache_leftpad, block_table, page_size, num_rows,
                   cache_batch_idx, rotary_cos, fn=_NAME):
    """The checks that read device values (one host synchronisation), through torch ops on any
    device; skipped under graph capture. Eager decode-kernel calls on the GPU take the same facts
    from one kernel instead (_launch's check_lengths)."""
    ends = cache_seqlens.long() + seqlen_new
    low_end, high = torch.aminmax(ends)
    facts = [low_end - seqlen_new, high]
    if cache_leftpad is not None:
        facts.append((cache_leftpad > cache_seqlens).any().long())
        facts.append(cache_leftpad.min())
    if block_table is not None:
        used = _page_starts(block_table.shape[1], page_size, block_table.device)[None, :] < ends[:, None]
        bad = ((block_table < 0) | (block_table >= num_rows)) & used
        facts.append(bad.any().long())
    if cache_batch_idx is not None:
        facts.append(((cache_batch_idx < 0) | (cache_batch_idx >= num_rows)).any().long())
    _raise_on_length_facts(torch.stack([f.long() for f in facts]).tolist(), capacity, cache_leftpad is not None,
                           block_table is not None, cache_batch_idx is not None, page_size, num_rows, rotary_cos, fn)


def _length_facts_from_kernel(rows):
    """_check_lengths' facts from the rows of kernels/decode/check_kernel.cuh (int64 (batch,
    _C.decode_check_facts) on the GPU), in its order: those of absent arguments are 0 and left out
    by the caller's flags. One copy to the host (the synchronisation) and Python reductions: six
    reductions of a CPU tensor were a fifth of an eager decode step."""
    seqlen, end, leftpad_over, leftpad, bad_page, bad_row = zip(*rows.tolist())
    return [min(seqlen), max(end), max(leftpad_over), min(leftpad), max(bad_page), max(bad_row)]


def _raise_on_length_facts(values, capacity, has_leftpad, has_table, has_batch_idx, page_size, num_rows,
                           rotary_cos, fn=_NAME):
    """values: [min cache_seqlens, max cache_seqlens + S_new], then with cache_leftpad [leftpad >
    cache_seqlens anywhere, min leftpad], with block_table [a used page outside k_cache], with
    cache_batch_idx [a row outside k_cache]."""
    low, high = values[0], values[1]
    if low < 0:
        raise ValueError("%s: cache_seqlens must be >= 0, got a minimum of %d" % (fn, low))
    if high > capacity:
        raise ValueError("%s: cache_seqlens + S_new reaches %d but the cache holds %d positions per row%s"
                         % (fn, high, capacity, " (block_table too short for page_size %d)" % page_size
                            if has_table else ""))
    i = 2
    if has_leftpad:
        if values[i]:
            raise ValueError("%s: cache_leftpad must be <= cache_seqlens in every row" % fn)
        if values[i + 1] < 0:
            raise ValueError("%s: cache_leftpad must be >= 0" % fn)
        i += 2
    if has_table:
        if values[i]:
            raise ValueError("%s: block_table names a page outside k_cache (0 .. %d) among the pages the "
                             "lengths use" % (fn, num_rows - 1))
        i += 1
    if has_batch_idx and values[i]:
        raise ValueError("%s: cache_batch_idx names a row outside k_cache (0 .. %d)" % (fn, num_rows - 1))
    if rotary_cos is not None and high > rotary_cos.shape[0]:
        raise ValueError("%s: rotary_cos has %d positions but cache_seqlens + S_new reaches %d"
                         % (fn, rotary_cos.shape[0], high))
