"""FlashAttention-compatible entry points (issue 13): same names, defaults and return
conventions as flash_attn 2.x, so existing code switches by changing an import.

    from flashcore import flash_attn_func, flash_attn_varlen_func
    out = flash_attn_func(q, k, v, causal=True, window_size=(4096, 0), softcap=30.0)
    out, lse, _ = flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                         max_seqlen_k, return_attn_probs=True)

Beyond flash_attn 2.x: `learnable_sink=` (gpt-oss attention sinks, a (heads,) logit per query
head, differentiable) on flash_attn_func and flash_attn_varlen_func, and `seqused_k=` on the
varlen function. Not implemented (a NotImplementedError naming the feature, never ignored):
dropout_p > 0 and alibi_slopes. return_attn_probs returns (out, lse, None): flashcore never
materialises the attention probabilities (flash_attn returns them only with dropout, for tests).

Everything is differentiable in q, k, v (and learnable_sink) through the torch custom ops of
flashcore._attention (fake implementations included), so torch.compile(fullgraph=True) and CUDA
graphs work. The one exception: the varlen value checks (cu_seqlens from 0 and non-decreasing,
within the tensors, max_seqlen large enough, seqused_k >= 0) read cu_seqlens on the host, which
is done only in eager mode outside CUDA-graph capture; under torch.compile and in a graph they
are skipped and the values are the caller's responsibility (as in flash_attn, which never
checks them).
"""

from __future__ import annotations

import torch

from flashcore import _attention, _checks
from flashcore._attention import attention_core

__all__ = ["flash_attn_func", "flash_attn_kvpacked_func", "flash_attn_qkvpacked_func", "flash_attn_varlen_func"]


def _dense(fn, q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
           return_lse, learnable_sink, try_direct=True):
    """Validated dense attention: (out, lse) with lse float32 (batch, heads, seqlen_q), or lse None
    when return_lse is False and the call took the direct path."""
    # Plain eager calls launch directly, as flashcore.attention's do: through the checks and the
    # custom op the seed shape (B1 H8 S512 D64) took 77-93 us a call against 15-19 us
    # (docs/results/2026-11-24-h100-session16.md). Anything else, including every call _direct
    # declines, takes the checks below, so errors are unchanged.
    if try_direct and type(dropout_p) in (float, int) and dropout_p == 0 and alibi_slopes is None \
            and learnable_sink is None and type(softcap) in (float, int) and softcap == 0 \
            and type(window_size) is tuple and window_size == (-1, -1) \
            and (deterministic is True or deterministic is False) and (return_lse is True or return_lse is False) \
            and _attention._may_launch_directly(q, k, v):
        res = _attention._direct(q, k, v, causal, softmax_scale, return_lse)
        if res is not None:
            return res if return_lse else (res, None)
    _checks.check_unsupported(fn, dropout_p, alibi_slopes)
    heads, _, head_dim = _checks.check_qkv(fn, q, k, v, varlen=False)
    _checks.check_flag(fn, "causal", causal)
    _checks.check_flag(fn, "deterministic", deterministic)
    _checks.check_flag(fn, "return_attn_probs", return_lse)
    window = _checks.check_window(fn, window_size)
    softcap = _checks.check_softcap(fn, softcap)
    scale = _checks.check_scale(fn, softmax_scale, head_dim)
    _checks.check_sink(fn, learnable_sink, heads, q.device)
    _checks.check_device(fn, q)
    return attention_core(q, k, v, softmax_scale=scale, causal=causal, window_size=window, softcap=softcap,
                          sink=learnable_sink, deterministic=deterministic)


def flash_attn_func(q, k, v, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                    alibi_slopes=None, deterministic=False, return_attn_probs=False, *, learnable_sink=None):
    """Attention over a dense batch, flash_attn's flash_attn_func.

    q: (batch, seqlen_q, heads, head_dim); k, v: (batch, seqlen_k, heads_kv, head_dim) with heads
    a multiple of heads_kv (GQA/MQA: query head h reads k/v head h // (heads // heads_kv), never a
    repeated copy). CUDA float16/bfloat16, head_dim a multiple of 8 from 8 to 256, unit stride on
    head_dim. v may have its own head dim (also a multiple of 8 up to 256; q/k 192 with v 128 is
    DeepSeek's multi-head latent attention): out then has v's head dim.
    softmax_scale: default 1/sqrt(head_dim). causal: bottom-right aligned mask (FlashAttention
    >= 2.1). window_size (left, right): query i sees keys j with
    i + seqlen_k - seqlen_q - left <= j <= i + seqlen_k - seqlen_q + right; -1 is unbounded and
    causal sets right to 0. softcap > 0: scores become softcap * tanh(scores / softcap).
    learnable_sink: optional (heads,) logits joining every row's softmax denominator (gpt-oss).
    deterministic: bitwise-reproducible backward. Returns out (batch, seqlen_q, heads, v's head_dim),
    or with return_attn_probs=True (out, lse, None), lse float32 (batch, heads, seqlen_q), natural
    log (a row that sees no key: out 0, lse -inf, or the sink's logit with a sink).
    dropout_p > 0 and alibi_slopes raise NotImplementedError."""
    out, lse = _dense("flashcore.flash_attn_func", q, k, v, dropout_p, softmax_scale, causal, window_size,
                      softcap, alibi_slopes, deterministic, return_attn_probs, learnable_sink)
    return (out, lse, None) if return_attn_probs else out


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                              softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False):
    """flash_attn_func on q, k, v packed as qkv (batch, seqlen, 3, heads, head_dim) (views, no
    copy; the gradient is qkv's). Same keywords and returns as flash_attn_func."""
    fn = "flashcore.flash_attn_qkvpacked_func"
    if not isinstance(qkv, torch.Tensor):
        raise TypeError("%s: qkv must be a torch.Tensor, got %s" % (fn, type(qkv).__name__))
    if qkv.dim() != 5 or qkv.shape[2] != 3:
        raise ValueError("%s: qkv must be 5-D (batch, seqlen, 3, heads, head_dim), got shape %s"
                         % (fn, tuple(qkv.shape)))
    q, k, v = qkv.unbind(2)
    out, lse = _dense(fn, q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                      deterministic, return_attn_probs, None)
    return (out, lse, None) if return_attn_probs else out


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                             softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False):
    """flash_attn_func with k, v packed as kv (batch, seqlen_k, 2, heads_kv, head_dim) (views,
    no copy). Same keywords and returns as flash_attn_func."""
    fn = "flashcore.flash_attn_kvpacked_func"
    if not isinstance(kv, torch.Tensor):
        raise TypeError("%s: kv must be a torch.Tensor, got %s" % (fn, type(kv).__name__))
    if kv.dim() != 5 or kv.shape[2] != 2:
        raise ValueError("%s: kv must be 5-D (batch, seqlen_k, 2, heads_kv, head_dim), got shape %s"
                         % (fn, tuple(kv.shape)))
    k, v = kv.unbind(2)
    out, lse = _dense(fn, q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                      deterministic, return_attn_probs, None)
    return (out, lse, None) if return_attn_probs else out


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                           softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                           deterministic=False, return_attn_probs=False, block_table=None, *, seqused_k=None,
                           learnable_sink=None):
    """Attention over a packed batch of variable-length sequences, flash_attn's
    flash_attn_varlen_func.

    q: (total_q, heads, head_dim); k, v: (total_k, heads_kv, head_dim). cu_seqlens_q/k: int32
    (batch + 1,) prefix sums of the lengths, from 0: sequence b's rows are cu_seqlens[b] ..
    cu_seqlens[b + 1] - 1. max_seqlen_q/k: host ints >= the longest sequence. Rows past
    cu_seqlens[-1] are neither read nor written. seqused_k: optional int32 (batch,), the keys
    sequence b actually uses (the first seqused_k[b]; the masks align to that length). The
    keywords are flash_attn_func's (v may have its own head dim, as there); returns out
    (total_q, heads, v's head_dim), or (out, lse, None) with lse float32 (heads, total_q).

    block_table (a paged KV cache: k, v are (num_pages, page_size, heads_kv, head_dim) and
    seqused_k is required) is served by flashcore.kvcache where this build has it (forward only,
    no autograd); otherwise it raises NotImplementedError."""
    fn = "flashcore.flash_attn_varlen_func"
    _checks.check_unsupported(fn, dropout_p, alibi_slopes)
    if block_table is not None:
        return _paged(fn, q, k, v, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_size, softcap,
                      return_attn_probs, block_table, seqused_k, learnable_sink)
    heads, _, head_dim = _checks.check_qkv(fn, q, k, v, varlen=True)
    _, max_seqlen_q, max_seqlen_k = _checks.check_varlen_metadata(fn, q, k, cu_seqlens_q, cu_seqlens_k,
                                                                  max_seqlen_q, max_seqlen_k, seqused_k)
    _checks.check_flag(fn, "causal", causal)
    _checks.check_flag(fn, "deterministic", deterministic)
    _checks.check_flag(fn, "return_attn_probs", return_attn_probs)
    window = _checks.check_window(fn, window_size)
    softcap = _checks.check_softcap(fn, softcap)
    scale = _checks.check_scale(fn, softmax_scale, head_dim)
    _checks.check_sink(fn, learnable_sink, heads, q.device)
    _checks.check_device(fn, q)
    _checks.check_lengths_on_device(fn, q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k)
    out, lse = attention_core(q, k, v, softmax_scale=scale, causal=causal, window_size=window, softcap=softcap,
                              sink=learnable_sink, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                              seqused_k=seqused_k, max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k,
                              deterministic=deterministic)
    return (out, lse, None) if return_attn_probs else out


def _paged_kernel():
    """flashcore.kvcache's paged varlen forward, or None where this build has no KV-cache module."""
    try:
        from flashcore import kvcache
    except ImportError:
        return None
    return getattr(kvcache, "paged_attention_varlen_into", None)


def _paged(fn, q, k_cache, v_cache, cu_seqlens_q, max_seqlen_q, softmax_scale, causal, window_size, softcap,
           return_lse, block_table, seqused_k, learnable_sink):
    run = _paged_kernel()
    if run is None:
        raise NotImplementedError("%s: block_table (a paged KV cache) is not implemented in this flashcore build"
                                  % fn)
    if learnable_sink is not None:
        raise NotImplementedError("%s: learnable_sink with block_table (a paged KV cache) is not implemented" % fn)
    if seqused_k is None:
        raise ValueError("%s: seqused_k (the keys of each sequence in its pages) is required with block_table" % fn)
    if any(isinstance(t, torch.Tensor) and t.requires_grad for t in (q, k_cache, v_cache)) \
            and torch.is_grad_enabled():
        raise NotImplementedError("%s: block_table (a paged KV cache) is forward-only; call it under "
                                  "torch.no_grad() or with inputs that do not require grad" % fn)
    _checks.check_tensor(fn, "q", q, 3)
    _checks.check_flag(fn, "causal", causal)
    _checks.check_flag(fn, "return_attn_probs", return_lse)
    window = _checks.check_window(fn, window_size)
    softcap = _checks.check_softcap(fn, softcap)
    scale = _checks.check_scale(fn, softmax_scale, q.shape[-1])
    _checks.check_device(fn, q)
    if torch.compiler.is_compiling():  # one opaque custom op in the compiled graph (_kvcache_ops.py)
        from flashcore import _kvcache_ops  # noqa: F401 - registers the op
        out, lse = torch.ops.flashcore.paged_varlen_attention(q, k_cache, v_cache, block_table, seqused_k,
                                                              cu_seqlens_q, int(max_seqlen_q), float(scale),
                                                              window[0], 0 if causal else window[1], float(softcap),
                                                              bool(return_lse))
        return (out, lse, None) if return_lse else out
    out = torch.empty_like(q)
    lse = torch.empty((q.shape[1], q.shape[0]), dtype=torch.float32, device=q.device) if return_lse else None
    run(q, k_cache, v_cache, block_table, seqused_k, cu_seqlens_q, max_seqlen_q, out, lse, softmax_scale=scale,
        causal=causal, window_size=window, softcap=softcap)
    return (out, lse, None) if return_lse else out


def attention_with_features(q, k, v, causal, softmax_scale, return_lse, deterministic, window_size, softcap,
                            learnable_sink):
    """flashcore.attention for calls that use a feature (GQA, window, softcap, sink): the same
    checks as flash_attn_func, under flashcore.attention's name (flashcore.attention has tried the
    direct path already)."""
    out, lse = _dense("flashcore.attention", q, k, v, 0.0, softmax_scale, causal, window_size, softcap, None,
                      deterministic, return_lse, learnable_sink, try_direct=False)
    return (out, lse) if return_lse else out
