"""flashcore: FlashAttention kernels for NVIDIA GPUs (FP16/BF16; sm80, sm89, sm90a).

    out = flashcore.attention(q, k, v, causal=False, softmax_scale=None, return_lse=False)

q, k, v are CUDA tensors laid out (batch, seqlen, heads, head_dim) as in FlashAttention. The
FlashAttention-compatible functions (flash_attn_func, flash_attn_varlen_func, ...; GQA, sliding
window, softcap, attention sinks, packed variable-length batches) are in flashcore.api;

    out = flashcore.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=..., ...)

is FlashAttention's KV-cache attention (in-place append, paged caches, split-KV decoding).
"""

from flashcore._attention import SUPPORTED_HEAD_DIMS, attention, build_info, select_arch
from flashcore.api import (flash_attn_func, flash_attn_kvpacked_func, flash_attn_qkvpacked_func,
                           flash_attn_varlen_func)
from flashcore.kvcache import flash_attn_with_kvcache

__all__ = ["SUPPORTED_HEAD_DIMS", "attention", "build_info", "flash_attn_func", "flash_attn_kvpacked_func",
           "flash_attn_qkvpacked_func", "flash_attn_varlen_func", "flash_attn_with_kvcache", "select_arch"]
