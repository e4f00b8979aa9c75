"""KV-cache attention for inference: flash_attn_with_kvcache (FlashAttention's signature and
semantics) over a contiguous or paged cache, on the split-KV decode kernels (kernels/decode/).

A call (1) applies rotary embeddings to q and the new k when rotary_cos/sin are given, (2) writes
the new k/v into the cache in place at positions cache_seqlens[b] .. cache_seqlens[b] + S_new - 1
(paged: into the pages block_table names), (3) attends q to the cache_seqlens[b] + S_new keys of
each row, causal aligned bottom-right. Every step is device work with no host read of device
values, so a decode step can be captured in a CUDA graph and replayed with new cache_seqlens;
the checks that need such a read (lengths past the cache, block-table entries out of range) run
only outside graph capture.
"""

from __future__ import annotations

import functools
import math
from typing import Optional, Tuple, Union

import torch

from flashcore import _attention, _checks
from flashcore._attention import _C, _DTYPE_NAMES, _arch_for, _raw_stream
from flashcore._kvcache_checks import (_NAME, _check_cache, _check_heads, _check_index_vector, _check_lengths,
                                       _check_rows_aligned, _check_scalars, _check_tensor, _check_window,
                                       _length_facts_from_kernel, _raise_on_length_facts)


# Head dims: the attention functions' set (_checks.SUPPORTED_HEAD_DIMS, any multiple of 8 up to
# 256). The decode kernels (kernels/decode/) are instantiated at 64, 128 and 256; the others run on
# the smallest of them >= it, the columns past it predicated (no padded copies: the HBM bytes are
# the call's head dim's).


@functools.lru_cache(maxsize=None)
def _num_sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


@functools.lru_cache(maxsize=None)
def _hbm_bytes_per_s(device_index: int) -> float:
    """The GPU's HBM bandwidth from its memory clock (kHz, double data rate) and bus width (bits);
    0.0 where torch does not report them. The page-order rule differs from 4.4 TB/s
    (kernels/decode/tile_policy.h decode_sort_max_page_size)."""
    props = torch.cuda.get_device_properties(device_index)
    clock_khz = getattr(props, "memory_clock_rate", 0) or 0
    bus_bits = getattr(props, "memory_bus_width", 0) or 0
    return 2.0 * clock_khz * 1e3 * bus_bits / 8.0


@functools.lru_cache(maxsize=4096)
def _plan(arch: str, head_dim: int, batch: int, heads: int, heads_kv: int, seqlen_q: int, max_seqlen_k: int,
          num_sms: int, num_splits: int, page_size: int = 0, leftpad: bool = False,
          dtype: str = "", hbm_bytes_per_s: float = 0.0) -> Tuple[int, int, int, int, int]:
    """(split count, int64 entries of the page-sort scratch, sort CTAs, lists per sort CTA, the
    compiled head dim the call runs on: the split scratch's row width) of a call: functions of the
    shapes, the layout, the SM count and the HBM bandwidth only (never of cache_seqlens), so the
    scratch of a captured step fits every replay. _set_forced_page_order clears the cache."""
    plan = _C.decode_plan(arch, head_dim, batch, heads, heads_kv, seqlen_q, max_seqlen_k, num_sms, num_splits,
                          page_size, leftpad, dtype, hbm_bytes_per_s)
    return (plan["num_splits"], plan["sorted_pages_entries"], plan["page_sort_ctas"],
            plan["page_sort_lists_per_cta"], plan["kernel_head_dim"])


# Test-only: the order paged decode calls visit their pages in (kernels/decode/tile_policy.h
# decode_page_sort). None lets each call pick; the GPU suite runs its paged cases in both
# orders.
PAGE_ORDERS = {None: 0, "key": 1, "address": 2}


def _set_forced_page_order(order):
    """Test-only. order: None, "key" or "address" (where the call is eligible)."""
    if order not in PAGE_ORDERS:
        raise ValueError("flashcore: forced page order must be one of %s, got %r"
                         % (sorted(map(str, PAGE_ORDERS)), order))
    _C.set_forced_decode_page_order(PAGE_ORDERS[order])
    _plan.cache_clear()  # the plans made under the previous order


def _capturing(t: torch.Tensor) -> bool:
    """Is t's device's current stream being captured into a CUDA graph? (CPU tensors: never.)"""
    return t.is_cuda and torch.cuda.is_current_stream_capturing()


def _apply_rotary(x, cos, sin, positions, interleaved: bool):
    """Rotary embedding on the first rotary_dim = 2 * cos.shape[1] channels of x (B, S, H, D) at
    positions (B, S) (int64), computed in float32 and rounded once to x's dtype. Interleaved
    (GPT-J): channel pairs (2i, 2i + 1); otherwise (GPT-NeoX) the halves (i, i + rotary_dim / 2)."""
    rot = 2 * cos.shape[1]
    c = cos.float()[positions].unsqueeze(2)  # (B, S, 1, rot / 2)
    s = sin.float()[positions].unsqueeze(2)
    xr = x[..., :rot].float()
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
        out = torch.stack((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1).flatten(-2)
    else:
        x1, x2 = xr[..., : rot // 2], xr[..., rot // 2:]
        out = torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1)
    if rot == x.shape[-1]:
        return out.to(x.dtype)
    return torch.cat((out.to(x.dtype), x[..., rot:]), dim=-1)


def _launch(q, k_cache, v_cache, out, lse, *, cache_seqlens, seqlen_new, block_table, cache_batch_idx,
            cache_leftpad, cu_seqlens_q, batch, seqlen_q, capacity, softmax_scale, window_left, window_right,
            softcap, num_splits, k_new=None, v_new=None, check_lengths=False):
    """Launches the decode kernels: q/out (batch, seqlen_q, heads, D) or packed (total_q, heads, D)
    with cu_seqlens_q; lse float32 (batch, heads, seqlen_q) / (heads, total_q) or None.
    k_new / v_new: appended by the launch. check_lengths: first _check_lengths' checks, from one
    kernel (kernels/decode/check_kernel.cuh) and one synchronisation."""
    device = q.get_device()
    arch = _arch_for(device)  # select_arch's library (FLASHCORE_FORCE_ARCH in the GPU suites)
    # A row sees at most `capacity` keys; wider sides would overflow the kernels' positions.
    window_left, window_right = _checks.clamp_window(window_left, window_right, seqlen_q, capacity)
    heads, head_dim = q.shape[-2], q.shape[-1]
    heads_kv = k_cache.shape[2]
    page_size = k_cache.shape[1] if block_table is not None else 0
    splits, sort_entries, sort_ctas, sort_lists, kernel_head_dim = _plan(
        arch, head_dim, batch, heads, heads_kv, seqlen_q, capacity, _num_sms(device), num_splits, page_size,
        cache_leftpad is not None, _DTYPE_NAMES[q.dtype], _hbm_bytes_per_s(device))
    sorted_pages = None
    if sort_entries:
        sorted_pages = torch.empty((sort_entries,), dtype=torch.int64, device=q.device)
    o_accum = lse_accum = None
    if splits > 1:
        # Rows of the kernel's head dim (its columns past the call's are never written or read).
        o_accum = torch.empty((splits, batch, heads, seqlen_q, kernel_head_dim or head_dim), dtype=torch.float32,
                              device=q.device)
        lse_accum = torch.empty((splits, batch, heads, seqlen_q), dtype=torch.float32, device=q.device)

    def strides3(t):
        if t.dim() == 3:  # packed rows: no batch stride
            return (0, t.stride(0), t.stride(1))
        return (t.stride(0), t.stride(1), t.stride(2))

    def ptr(t):
        return 0 if t is None else t.data_ptr()

    params = {
        "q": q.data_ptr(), "o": out.data_ptr(), "lse": ptr(lse),
        "q_strides": strides3(q), "o_strides": strides3(out),
        "k_cache": k_cache.data_ptr(), "v_cache": v_cache.data_ptr(),
        "k_strides": strides3(k_cache), "v_strides": strides3(v_cache),
        "block_table": ptr(block_table),
        "block_table_stride": 0 if block_table is None else block_table.stride(0),
        "page_size": page_size,
        "cache_capacity": capacity, "cache_rows": k_cache.shape[0],
        "cache_seqlens": cache_seqlens.data_ptr(), "seqlen_new": seqlen_new,
        "cache_batch_idx": ptr(cache_batch_idx), "cache_leftpad": ptr(cache_leftpad),
        "cu_seqlens_q": ptr(cu_seqlens_q), "total_q": q.shape[0] if cu_seqlens_q is not None else 0,
        "batch": batch, "heads": heads, "heads_kv": heads_kv, "seqlen_q": seqlen_q, "head_dim": head_dim,
        "softmax_scale": softmax_scale, "softcap": softcap,
        "window_left": window_left, "window_right": window_right,
        "num_splits": splits, "o_accum": ptr(o_accum), "lse_accum": ptr(lse_accum),
        "sorted_pages": ptr(sorted_pages), "page_sort_ctas": sort_ctas, "page_sort_lists_per_cta": sort_lists,
        "k_new": ptr(k_new), "v_new": ptr(v_new),
        "k_new_strides": strides3(k_new) if k_new is not None else (0, 0, 0),
        "v_new_strides": strides3(v_new) if v_new is not None else (0, 0, 0),
    }
    if check_lengths:
        rows = torch.empty((batch, _C.decode_check_facts), dtype=torch.int64, device=q.device)
        _C.decode(device, arch, _DTYPE_NAMES[q.dtype], dict(params, check_facts=rows.data_ptr()),
                  _raw_stream(device))
        facts = _length_facts_from_kernel(rows)
        kept = facts[:2] + (facts[2:4] if cache_leftpad is not None else []) \
            + (facts[4:5] if block_table is not None else []) + (facts[5:] if cache_batch_idx is not None else [])
        _raise_on_length_facts(kept, capacity, cache_leftpad is not None, block_table is not None,
                               cache_batch_idx is not None, page_size, k_cache.shape[0], None)
    _C.decode(device, arch, _DTYPE_NAMES[q.dtype], params, _raw_stream(device))


def flash_attn_with_kvcache(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    k: Optional[torch.Tensor] = None,
    v: Optional[torch.Tensor] = None,
    rotary_cos: Optional[torch.Tensor] = None,
    rotary_sin: Optional[torch.Tensor] = None,
    cache_seqlens: Optional[Union[int, torch.Tensor]] = None,
    cache_batch_idx: Optional[torch.Tensor] = None,
    cache_leftpad: Optional[torch.Tensor] = None,
    block_table: Optional[torch.Tensor] = None,
    softmax_scale: Optional[float] = None,
    causal: bool = False,
    window_size: Tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    rotary_interleaved: bool = True,
    alibi_slopes: Optional[torch.Tensor] = None,
    num_splits: int = 0,
    return_softmax_lse: bool = False,
):
    """Attention of q over a KV cache, appending new keys/values in place first (FlashAttention's
    flash_attn_with_kvcache). Forward only.

    q: (batch, S_new_q, heads, head_dim). k_cache / v_cache: contiguous (batch_cache, S_cache,
    heads_kv, head_dim), or paged (num_pages, page_size, heads_kv, head_dim) with block_table
    int32 (batch, max_pages). k / v: (batch, S_new, heads_kv, head_dim) or None; written into the
    cache at positions cache_seqlens[b] .. cache_seqlens[b] + S_new - 1 (rotary applied first when
    rotary_cos / rotary_sin (seqlen_ro, rotary_dim / 2) are given; q is rotated at positions
    cache_seqlens[b] + i if causal or windowed, else at cache_seqlens[b], as FlashAttention does).
    cache_seqlens: int or int32 (batch,), the lengths before the append (None: the whole cache,
    only without k/v). cache_batch_idx: int32 (batch,), the cache row of each batch row
    (contiguous caches only). cache_leftpad: int32 (batch,), the first valid position of each row.
    causal: bottom-right aligned; window_size (left, right), -1 unbounded; softcap > 0 caps the
    scores; num_splits: 0 picks the split-KV count from the SM count, 1 disables, n uses n (at most
    128). Returns out (batch, S_new_q, heads, head_dim), and with return_softmax_lse also the
    float32 (batch, heads, S_new_q) log-sum-exp.
    """
    if alibi_slopes is not None:
        raise NotImplementedError("%s: alibi_slopes is not supported by flashcore" % _NAME)
    if torch.compiler.is_compiling():  # one opaque custom op in the compiled graph (_kvcache_ops.py)
        from flashcore import _kvcache_ops
        return _kvcache_ops.flash_attn_with_kvcache(
            q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
            block_table, softmax_scale, causal, window_size, softcap, rotary_interleaved, num_splits,
            return_softmax_lse)
    return _flash_attn_with_kvcache_eager(
        q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
        block_table, softmax_scale, causal, window_size, softcap, rotary_interleaved, num_splits,
        return_softmax_lse)


def _flash_attn_with_kvcache_eager(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens,
                                   cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal, window_size,
                                   softcap, rotary_interleaved, num_splits, return_softmax_lse):
    """flash_attn_with_kvcache's work (alibi_slopes already refused there), arguments positional in
    its order (also the custom op's implementation, _kvcache_ops.py)."""
    _check_tensor("q", q, 4, tuple(_DTYPE_NAMES))
    batch, seqlen_q, heads, head_dim = q.shape
    if q.numel() == 0:
        raise ValueError("%s: q is empty (shape %s)" % (_NAME, tuple(q.shape)))
    if head_dim not in _checks.SUPPORTED_HEAD_DIMS:
        raise ValueError(_checks.head_dim_error(_NAME, head_dim) + " (q's last dimension)")
    paged, page_size, heads_kv = _check_cache(k_cache, v_cache, block_table, q.dtype, head_dim)
    _check_heads(heads, heads_kv)
    if paged:
        if block_table.shape[0] != batch:
            raise ValueError("%s: block_table must have one row per batch row (%d), got shape %s"
                             % (_NAME, batch, tuple(block_table.shape)))
        capacity = block_table.shape[1] * page_size
        if cache_batch_idx is not None:
            raise ValueError("%s: cache_batch_idx is for contiguous caches; with block_table, pick the "
                             "pages per batch row in block_table instead" % _NAME)
    else:
        capacity = k_cache.shape[1]
        if cache_batch_idx is None and k_cache.shape[0] != batch:
            raise ValueError("%s: k_cache has %d rows but q has batch %d (pass cache_batch_idx to map them)"
                             % (_NAME, k_cache.shape[0], batch))
    if (k is None) != (v is None):
        raise ValueError("%s: k and v must be given together (k is %s, v is %s)"
                         % (_NAME, "None" if k is None else "set", "None" if v is None else "set"))
    seqlen_new = 0
    if k is not None:
        for name, t in (("k", k), ("v", v)):
            _check_tensor(name, t, 4, tuple(_DTYPE_NAMES))
            if t.dtype != q.dtype:
                raise TypeError("%s: %s must have q's dtype %s, got %s" % (_NAME, name, q.dtype, t.dtype))
        if k.shape != v.shape or k.shape[0] != batch or k.shape[2] != heads_kv or k.shape[3] != head_dim:
            raise ValueError("%s: k and v must be (batch=%d, S_new, heads_kv=%d, head_dim=%d), got %s and %s"
                             % (_NAME, batch, heads_kv, head_dim, tuple(k.shape), tuple(v.shape)))
        seqlen_new = k.shape[1]
        if seqlen_new < 1:
            raise ValueError("%s: k has no new tokens (shape %s)" % (_NAME, tuple(k.shape)))
    if (rotary_cos is None) != (rotary_sin is None):
        raise ValueError("%s: rotary_cos and rotary_sin must be given together" % _NAME)
    if rotary_cos is not None:
        if k is None:
            raise ValueError("%s: rotary_cos/rotary_sin need the new k and v to append" % _NAME)
        for name, t in (("rotary_cos", rotary_cos), ("rotary_sin", rotary_sin)):
            _check_tensor(name, t, 2, (torch.float16, torch.bfloat16, torch.float32))
        if rotary_cos.shape != rotary_sin.shape:
            raise ValueError("%s: rotary_cos and rotary_sin must have one shape, got %s and %s"
                             % (_NAME, tuple(rotary_cos.shape), tuple(rotary_sin.shape)))
        if not 0 < 2 * rotary_cos.shape[1] <= head_dim:
            raise ValueError("%s: rotary_cos must be (seqlen_ro, rotary_dim / 2) with rotary_dim <= head_dim "
                             "(%d), got shape %s" % (_NAME, head_dim, tuple(rotary_cos.shape)))
    _check_scalars(cache_seqlens, softcap, num_splits)
    if cache_seqlens is None:
        if k is not None:
            raise ValueError("%s: cache_seqlens is needed to append k/v (where the new tokens go)" % _NAME)
        cache_seqlens = capacity
    if isinstance(cache_seqlens, int):
        if not 0 <= cache_seqlens <= capacity - seqlen_new:
            raise ValueError("%s: cache_seqlens (%d) + S_new (%d) exceeds the cache's %d positions"
                             % (_NAME, cache_seqlens, seqlen_new, capacity))
        cache_seqlens = torch.full((batch,), cache_seqlens, dtype=torch.int32, device=q.device)
    else:
        _check_index_vector("cache_seqlens", cache_seqlens, batch)
    if cache_batch_idx is not None:
        _check_index_vector("cache_batch_idx", cache_batch_idx, batch)
    if cache_leftpad is not None:
        _check_index_vector("cache_leftpad", cache_leftpad, batch)
    window_left, window_right = _check_window(window_size, causal)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(head_dim)
    tensors = [("q", q), ("k_cache", k_cache), ("v_cache", v_cache), ("cache_seqlens", cache_seqlens)]
    tensors += [(n, t) for n, t in (("k", k), ("v", v), ("rotary_cos", rotary_cos), ("rotary_sin", rotary_sin),
                                    ("cache_batch_idx", cache_batch_idx), ("cache_leftpad", cache_leftpad),
                                    ("block_table", block_table)) if t is not None]
    for name, t in tensors:
        if t.device != q.device:
            raise ValueError("%s: %s must be on q's device %s, got %s" % (_NAME, name, q.device, t.device))
    # Before the CUDA check, so that the length errors are the same on every device. Eager calls on
    # the decode kernels (no rotary, whose positions must be checked before it runs) take the same
    # checks from one kernel in _launch: through torch ops they were half of an eager step.
    # Prefill-sized chunks into a contiguous cache run on the Hopper forward (see below).
    on_forward = q.is_cuda and _prefill_on_forward_kernel(q, page_size, cache_batch_idx, cache_leftpad)
    checks_in_launch = q.is_cuda and rotary_cos is None and not on_forward
    capturing = _capturing(q)
    if not capturing and not checks_in_launch:
        _check_lengths(cache_seqlens, seqlen_new, capacity, cache_leftpad, block_table, page_size,
                       k_cache.shape[0], cache_batch_idx, rotary_cos)
    if q.device.type != "cuda":
        raise ValueError("%s: q, k_cache, v_cache and the other tensors must be CUDA tensors, got %s"
                         % (_NAME, q.device))

    # Rotary, then the in-place append (device work only: capturable). The decode kernels' launch
    # appends itself (one kernel: kernels/decode/append_kernel.cuh); the prefill path below, on the
    # Hopper forward, appends through torch indexing first.
    if k is not None and (rotary_cos is not None or on_forward):  # the new tokens' positions (batch, S_new)
        positions = cache_seqlens.long()[:, None] + torch.arange(seqlen_new, device=q.device)[None, :]
    if k is not None and rotary_cos is not None:
        k = _apply_rotary(k, rotary_cos, rotary_sin, positions, rotary_interleaved)
        if window_left >= 0 or window_right >= 0:  # causal or local: token i at its own position
            q_pos = cache_seqlens.long()[:, None] + torch.arange(seqlen_q, device=q.device)[None, :]
        else:  # FlashAttention rotates every query token at cache_seqlens[b]
            q_pos = cache_seqlens.long()[:, None].expand(batch, seqlen_q)
        q = _apply_rotary(q, rotary_cos, rotary_sin, q_pos, rotary_interleaved)
    if k is not None and on_forward:
        if paged:
            pages = torch.gather(block_table.long(), 1, torch.div(positions, page_size, rounding_mode="floor"))
            rows_in_page = positions % page_size
            k_cache[pages, rows_in_page] = k
            v_cache[pages, rows_in_page] = v
        else:
            rows = (cache_batch_idx.long() if cache_batch_idx is not None
                    else torch.arange(batch, device=q.device))[:, None].expand(batch, seqlen_new)
            k_cache[rows, positions] = k
            v_cache[rows, positions] = v
    q = _attention._kernel_layout(q)
    if on_forward:
        # Prefill-sized chunks: the Hopper forward (wgmma) reads the cache's used prefix (seqused_k =
        # lengths after the append; masks align to it) at the forward's speed, where the mma.sync
        # decode kernel reaches 0.37x of it (docs/PERF.md); a paged cache page by page through the
        # block table (kernels/hopper/paged_kv.cuh).
        seqused_k = (cache_seqlens + seqlen_new).to(torch.int32)
        if paged:
            out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
            lse = torch.empty((batch, heads, seqlen_q), dtype=torch.float32, device=q.device)
            _paged_forward_into(q, k_cache, v_cache, out, lse, block_table=block_table, seqused_k=seqused_k,
                                softmax_scale=float(softmax_scale), window_size=(window_left, window_right),
                                softcap=float(softcap))
        else:
            with torch.no_grad():
                out, lse = _attention.attention_core(
                    q, k_cache, v_cache, softmax_scale=float(softmax_scale), causal=False,
                    window_size=(window_left, window_right), softcap=float(softcap), seqused_k=seqused_k)
        return (out, lse) if return_softmax_lse else out
    if k is not None:  # the append kernel copies 16-byte row chunks
        k, v = _attention._kernel_layout(k), _attention._kernel_layout(v)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse = torch.empty((batch, heads, seqlen_q), dtype=torch.float32, device=q.device) if return_softmax_lse else None
    _launch(q, k_cache, v_cache, out, lse, cache_seqlens=cache_seqlens, seqlen_new=seqlen_new,
            block_table=block_table, cache_batch_idx=cache_batch_idx, cache_leftpad=cache_leftpad,
            cu_seqlens_q=None, batch=batch, seqlen_q=seqlen_q, capacity=capacity,
            softmax_scale=float(softmax_scale), window_left=window_left, window_right=window_right,
            softcap=float(softcap), num_splits=num_splits, k_new=k, v_new=v,
            check_lengths=checks_in_launch and not capturing)
    return (out, lse) if return_softmax_lse else out


# Query rows from which a call runs on the Hopper forward kernel instead of the decode kernel
# (S_new_q of a dense call, the mean rows a sequence of a packed one). The forward gives each
# sequence whole 128-row tiles over all its keys, where the decode kernel packs a GQA group's rows
# and splits long key ranges over SMs. Contiguous caches: one full query tile of the forward (its
# tile policy's block_m). Paged caches, measured (H100, 16 sequences of 4096 keys, Hq32 Hk8 d128,
# causal; forward / decode kernel time, docs/results/2026-11-25-h100-session20.md): pages of 16
# 1.20x at 64 rows, 0.81x at 96; pages of 32 / 64 / 256 0.95-1.03x at 48, 0.72-0.77x at 64.
PREFILL_MIN_QUERY_ROWS = 128
PAGED_MIN_QUERY_ROWS = 64
PAGED_16_MIN_QUERY_ROWS = 96  # pages of 16: eight copies a key block per tensor and column block
# Page sizes the forward's paged loads take: multiples of kPagedKvPageMultiple
# (kernels/flash_fwd_api.h; boxes of whole 16-row swizzle atoms); other sizes stay on the decode
# kernel, which takes any.
PAGED_FORWARD_PAGE_MULTIPLE = _C.paged_kv_page_multiple
# Test-only: None lets the rules above choose; True / False sends every eligible call (sm90a, a
# page size the forward takes, no cache_batch_idx / cache_leftpad) to the forward / decode kernel.
_forced_forward = None


def _set_forced_forward(value):
    global _forced_forward
    _forced_forward = value


def _prefill_on_forward_kernel(q, page_size, cache_batch_idx, cache_leftpad, mean_rows=None) -> bool:
    """Whether a call runs on the Hopper forward: page_size None for a contiguous cache;
    mean_rows (packed calls) the mean query rows per sequence, else q's S_new_q decides."""
    if (cache_batch_idx is not None or cache_leftpad is not None
            or (page_size is not None and page_size % PAGED_FORWARD_PAGE_MULTIPLE != 0)
            or _arch_for(q.get_device()) != "sm90a"):
        return False
    if _forced_forward is not None:
        return _forced_forward
    rows = q.shape[1] if mean_rows is None else mean_rows
    if page_size is None:
        return rows >= PREFILL_MIN_QUERY_ROWS
    return rows >= (PAGED_16_MIN_QUERY_ROWS if page_size == 16 else PAGED_MIN_QUERY_ROWS)


def _paged_forward_into(q, k_cache, v_cache, out, lse, *, block_table, seqused_k, softmax_scale, window_size,
                        softcap=0.0, cu_seqlens_q=None, max_seqlen_q=0) -> None:
    """Forward only, on the sm90a kernel: attention of q over a paged KV cache
    (flash_attn_with_kvcache and paged_attention_varlen_into send prefill-sized calls here, their
    inputs checked). q / out: dense (B, Sq, Hq, D) or packed (total_q, Hq, D) with cu_seqlens_q
    and max_seqlen_q; k_cache / v_cache (num_pages, page_size, Hk, D), page_size a multiple of 16;
    block_table int32 (B, max_pages); seqused_k int32 (B,): each sequence's keys, positions 0.. of
    its pages. window_size: (left, right), causal being (left, 0), bottom-right aligned. lse:
    float32, (B, Hq, Sq) or (Hq, total_q), written. Capturable: reads no device value."""
    _attention._launch(q, k_cache, v_cache, out, lse, False, float(softmax_scale),
                       window_left=int(window_size[0]), window_right=int(window_size[1]), softcap=float(softcap),
                       cu_seqlens_q=cu_seqlens_q, seqused_k=seqused_k, max_seqlen_q=int(max_seqlen_q),
                       max_seqlen_k=block_table.shape[1] * k_cache.shape[1], block_table=block_table)


def paged_attention_varlen_into(q, k_cache, v_cache, block_table, seqused_k, cu_seqlens_q, max_seqlen_q, out,
                                lse=None, *, softmax_scale, causal=False, window_size=(-1, -1), softcap=0.0,
                                num_splits=0):
    """Internal: packed variable-length queries over a paged KV cache (vLLM's call of
    flash_attn_varlen_func(..., block_table=, seqused_k=)), for flashcore's varlen front end.

    q, out: (total_q, heads, head_dim), rows of sequence b from cu_seqlens_q[b] (int32, batch + 1).
    k_cache / v_cache: (num_pages, page_size, heads_kv, head_dim); block_table int32 (batch,
    max_pages); seqused_k int32 (batch,): sequence b's keys are positions 0 .. seqused_k[b] - 1 of
    its pages (no append here). lse: float32 (heads, total_q), contiguous, or None. causal /
    window are bottom-right aligned per sequence. Writes out (and lse); returns nothing. Nothing
    here reads device values, so it is capturable; the lengths are the caller's to check."""
    fn = "flashcore.flash_attn_varlen_func"
    _check_tensor("q", q, 3, tuple(_DTYPE_NAMES), fn)
    _check_rows_aligned("q", q, fn)
    total_q, heads, head_dim = q.shape
    if head_dim not in _checks.SUPPORTED_HEAD_DIMS:
        raise ValueError(_checks.head_dim_error(fn, head_dim))
    if block_table is None:
        raise ValueError("%s: block_table is required for a paged cache" % fn)
    _, page_size, heads_kv = _check_cache(k_cache, v_cache, block_table, q.dtype, head_dim, fn)
    _check_heads(heads, heads_kv, fn)
    _check_tensor("cu_seqlens_q", cu_seqlens_q, 1, (torch.int32,), fn)
    batch = cu_seqlens_q.shape[0] - 1
    if batch < 1 or block_table.shape[0] != batch:
        raise ValueError("%s: cu_seqlens_q (%d entries) and block_table (%d rows) disagree on the batch"
                         % (fn, cu_seqlens_q.shape[0], block_table.shape[0]))
    _check_index_vector("seqused_k", seqused_k, batch, fn)
    if out.shape != q.shape or out.dtype != q.dtype or out.device != q.device:
        raise ValueError("%s: out must match q's shape, dtype and device" % fn)
    _check_rows_aligned("out", out, fn)
    if lse is not None and (tuple(lse.shape) != (heads, total_q) or lse.dtype != torch.float32
                            or not lse.is_contiguous()):
        raise ValueError("%s: lse must be a contiguous float32 (heads, total_q) tensor" % fn)
    window_left, window_right = _check_window(window_size, causal, fn)
    if q.is_cuda and _prefill_on_forward_kernel(q, page_size, None, None, mean_rows=total_q / batch):
        _paged_forward_into(
            q, k_cache, v_cache, out,
            lse if lse is not None else torch.empty((heads, total_q), dtype=torch.float32, device=q.device),
            block_table=block_table, seqused_k=seqused_k, softmax_scale=float(softmax_scale),
            window_size=(window_left, window_right), softcap=float(softcap), cu_seqlens_q=cu_seqlens_q,
            max_seqlen_q=int(max_seqlen_q))
        return
    _launch(q, k_cache, v_cache, out, lse, cache_seqlens=seqused_k, seqlen_new=0, block_table=block_table,
            cache_batch_idx=None, cache_leftpad=None, cu_seqlens_q=cu_seqlens_q, batch=batch,
            seqlen_q=int(max_seqlen_q), capacity=block_table.shape[1] * page_size,
            softmax_scale=float(softmax_scale), window_left=window_left, window_right=window_right,
            softcap=float(softcap), num_splits=num_splits)
