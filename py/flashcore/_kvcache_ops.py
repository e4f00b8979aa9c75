"""The KV-cache entry points as torch custom ops, for torch.compile: flash_attn_with_kvcache and
the paged flash_attn_varlen_func (block_table=, seqused_k=) trace into a compiled graph as one
opaque op each (fullgraph=True works; without them Dynamo breaks the graph at the extension
call). The public functions route here only while compiling: eager calls keep their direct path,
since a custom op's dispatch costs tens of microseconds of host time on every decode step.

Each op's implementation is the eager function itself, so a compiled call validates and computes
exactly what an eager one does; the fake implementations give the output shapes.
flashcore::kvcache_attention mutates k_cache and v_cache (the in-place append)."""

from typing import Optional, Tuple

import torch

from flashcore import kvcache


@torch.library.custom_op("flashcore::kvcache_attention", mutates_args=("k_cache", "v_cache"))
def _kvcache_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, k: Optional[torch.Tensor],
                       v: Optional[torch.Tensor], rotary_cos: Optional[torch.Tensor],
                       rotary_sin: Optional[torch.Tensor], cache_seqlens: Optional[torch.Tensor],
                       cache_seqlens_int: Optional[int], cache_batch_idx: Optional[torch.Tensor],
                       cache_leftpad: Optional[torch.Tensor], block_table: Optional[torch.Tensor],
                       softmax_scale: Optional[float], causal: bool, window_left: int, window_right: int,
                       softcap: float, rotary_interleaved: bool, num_splits: int,
                       return_softmax_lse: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """(out, lse); lse is empty unless return_softmax_lse. cache_seqlens: the tensor, or else
    cache_seqlens_int (an int, or None: the whole cache)."""
    res = kvcache._flash_attn_with_kvcache_eager(
        q, k_cache, v_cache, k, v, rotary_cos, rotary_sin,
        cache_seqlens if cache_seqlens is not None else cache_seqlens_int, cache_batch_idx, cache_leftpad,
        block_table, softmax_scale, causal, (window_left, window_right), softcap, rotary_interleaved, num_splits,
        return_softmax_lse)
    if return_softmax_lse:
        return res
    return res, q.new_empty((0,), dtype=torch.float32)


@_kvcache_attention.register_fake
def _kvcache_attention_fake(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_seqlens_int,
                            cache_batch_idx, cache_leftpad, block_table, softmax_scale, causal, window_left,
                            window_right, softcap, rotary_interleaved, num_splits, return_softmax_lse):
    batch, seqlen_q, heads, _ = q.shape
    lse_shape = (batch, heads, seqlen_q) if return_softmax_lse else (0,)
    return q.new_empty(q.shape), q.new_empty(lse_shape, dtype=torch.float32)


def flash_attn_with_kvcache(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx,
                            cache_leftpad, block_table, softmax_scale, causal, window_size, softcap,
                            rotary_interleaved, num_splits, return_softmax_lse):
    """kvcache.flash_attn_with_kvcache's arguments (alibi_slopes refused by the caller) through the op."""
    # The eager checks of the scalar arguments first: the op's schema would coerce them.
    window_size = kvcache._check_window(window_size, causal)
    kvcache._check_scalars(cache_seqlens, softcap, num_splits)
    tensor_lens = cache_seqlens if isinstance(cache_seqlens, torch.Tensor) else None
    out, lse = torch.ops.flashcore.kvcache_attention(
        q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, tensor_lens,
        None if tensor_lens is not None else cache_seqlens, cache_batch_idx, cache_leftpad, block_table,
        None if softmax_scale is None else float(softmax_scale), bool(causal), int(window_size[0]),
        int(window_size[1]), float(softcap), bool(rotary_interleaved), int(num_splits), bool(return_softmax_lse))
    return (out, lse) if return_softmax_lse else out


@torch.library.custom_op("flashcore::paged_varlen_attention", mutates_args=())
def _paged_varlen_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                            block_table: torch.Tensor, seqused_k: torch.Tensor, cu_seqlens_q: torch.Tensor,
                            max_seqlen_q: int, softmax_scale: float, window_left: int, window_right: int,
                            softcap: float, return_lse: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """(out, lse): flash_attn_varlen_func over a paged cache (kvcache.paged_attention_varlen_into);
    lse (heads, total_q) float32, empty unless return_lse."""
    out = torch.empty_like(q)
    lse = torch.empty((q.shape[1], q.shape[0]), dtype=torch.float32, device=q.device) if return_lse else None
    kvcache.paged_attention_varlen_into(q, k_cache, v_cache, block_table, seqused_k, cu_seqlens_q, max_seqlen_q,
                                        out, lse, softmax_scale=softmax_scale,
                                        window_size=(window_left, window_right), softcap=softcap)
    return out, (lse if lse is not None else q.new_empty((0,), dtype=torch.float32))


@_paged_varlen_attention.register_fake
def _paged_varlen_attention_fake(q, k_cache, v_cache, block_table, seqused_k, cu_seqlens_q, max_seqlen_q,
                                 softmax_scale, window_left, window_right, softcap, return_lse):
    # out as the eager path makes it (torch.empty_like: q's layout where q is a dense permuted view)
    return torch.empty_like(q), q.new_empty((q.shape[1], q.shape[0]) if return_lse else (0,), dtype=torch.float32)
