"""flashcore: FlashAttention forward kernels for NVIDIA GPUs (FP16/BF16; sm80, sm89, sm90a).

    out = flashcore.attention(q, k, v, causal=False, softmax_scale=None, return_lse=False)

q, k, v are CUDA tensors laid out (batch, seqlen, heads, head_dim) as in FlashAttention.

    out = flashcore.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=..., ...)

is FlashAttention's KV-cache attention (in-place append, paged caches, split-KV decoding).
"""

from flashcore._attention import SUPPORTED_HEAD_DIMS, attention, build_info, select_arch
from flashcore.kvcache import flash_attn_with_kvcache

__all__ = ["SUPPORTED_HEAD_DIMS", "attention", "build_info", "flash_attn_with_kvcache", "select_arch"]
