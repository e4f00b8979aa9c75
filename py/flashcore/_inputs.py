"""flashcore._inputs: a call's arguments as the kernels take them: the dtypes that have kernels
(_DTYPE_NAMES), the checks of a plain flashcore.attention call (_check_inputs), and the run-time
features normalised into the extension's argument tuple (_Features, _PLAIN). Apart from
flashcore._attention because they are pure functions of the arguments (no extension, device or
test switch) and the backward (flashcore._backward) builds its launch from the same _Features;
flashcore._attention re-exports them, and the other modules and the tests reach them there."""

from __future__ import annotations

import math

import torch

from flashcore._checks import SUPPORTED_HEAD_DIMS, clamp_window, head_dim_error  # every multiple of 8 from 8 to 256

_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}
_GRID_LIMIT = 65535  # batch and heads map to grid.z and grid.y


def _check_inputs(q, k, v, causal, softmax_scale) -> float:
    """Raises a clear error naming the argument for anything the kernels do not accept.
    Device checks come last so that shape errors are reported the same on every device."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError("flashcore.attention: %s must be a torch.Tensor, got %s" % (name, type(t).__name__))
        if t.dim() != 4:
            raise ValueError(
                "flashcore.attention: %s must be 4-D (batch, seqlen, heads, head_dim), got shape %s"
                % (name, tuple(t.shape))
            )
        if t.dtype not in _DTYPE_NAMES:
            raise TypeError(
                "flashcore.attention: %s must be float16 or bfloat16, got %s" % (name, t.dtype)
            )
        if t.numel() == 0:
            raise ValueError("flashcore.attention: %s is empty (shape %s); every dimension must be >= 1"
                             % (name, tuple(t.shape)))
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError("flashcore.attention: q, k and v must have one dtype, got q %s, k %s, v %s"
                        % (q.dtype, k.dtype, v.dtype))
    batch, seqlen_q, heads, head_dim = q.shape
    for name, t in (("k", k), ("v", v)):
        if t.shape[0] != batch:
            raise ValueError("flashcore.attention: %s has batch %d but q has batch %d" % (name, t.shape[0], batch))
        if t.shape[2] != heads:
            raise ValueError("flashcore.attention: %s has %d heads but q has %d" % (name, t.shape[2], heads))
        if t.shape[3] != head_dim:
            raise ValueError("flashcore.attention: %s has head_dim %d but q has %d" % (name, t.shape[3], head_dim))
    if k.shape[1] != v.shape[1]:
        raise ValueError("flashcore.attention: k and v must have one seqlen, got k %d and v %d"
                         % (k.shape[1], v.shape[1]))
    if head_dim not in SUPPORTED_HEAD_DIMS:
        raise ValueError(head_dim_error("flashcore.attention", head_dim))
    if batch > _GRID_LIMIT or heads > _GRID_LIMIT:
        raise ValueError("flashcore.attention: batch and heads must each be <= %d, got batch %d, heads %d"
                         % (_GRID_LIMIT, batch, heads))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1:
            raise ValueError("flashcore.attention: %s must be contiguous in its last (head_dim) dimension, "
                             "got strides %s; pass %s.contiguous()" % (name, t.stride(), name))
        if any(s % 8 for s in t.stride()[:3]):
            raise ValueError("flashcore.attention: %s's batch/seq/head strides %s must be multiples of 8 "
                             "elements (16-byte rows); pass %s.contiguous()" % (name, t.stride()[:3], name))
    if not isinstance(causal, bool):
        raise TypeError("flashcore.attention: causal must be a bool, got %s" % type(causal).__name__)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(head_dim)
    if isinstance(softmax_scale, bool) or not isinstance(softmax_scale, (int, float)) \
            or not math.isfinite(softmax_scale):
        raise ValueError("flashcore.attention: softmax_scale must be a finite number or None, got %r"
                         % (softmax_scale,))
    if not (q.device == k.device == v.device):
        raise ValueError("flashcore.attention: q, k and v must be on one device, got q on %s, k on %s, v on %s"
                         % (q.device, k.device, v.device))
    if q.device.type != "cuda":
        raise ValueError("flashcore.attention: q, k and v must be CUDA tensors, got tensors on %s" % q.device)
    return float(softmax_scale)


class _Features:
    """The run-time features of one call, normalised for the kernels (kernels/flash_fwd_api.h,
    AttentionFeatures): which instantiation runs (masked or not), the grid's batch and lengths,
    the kernels' strides for dense or packed tensors, and the tuple _C.fwd/_C.bwd take."""

    __slots__ = ("masked", "batch", "seqlen_q", "seqlen_k", "varlen", "paged", "total_q", "total_k", "as_tuple")

    def __init__(self, q, k, causal, window_left, window_right, softcap, sink, cu_seqlens_q, cu_seqlens_k,
                 seqused_k, max_seqlen_q, max_seqlen_k, block_table=None):
        if causal:
            window_right = 0  # FlashAttention: causal is the window (left, 0)
        self.masked = bool(causal or window_left >= 0 or window_right >= 0)
        self.varlen = cu_seqlens_q is not None
        # A paged KV cache (sm90a forward only): k, v (num_pages, page_size, heads_kv, head_dim);
        # max_seqlen_k is then the most keys the block table holds (AttentionFeatures::block_table).
        self.paged = block_table is not None
        if self.varlen:
            self.batch = cu_seqlens_q.shape[0] - 1
            self.seqlen_q, self.seqlen_k = int(max_seqlen_q), int(max_seqlen_k)
            self.total_q, self.total_k = q.shape[0], 0 if self.paged else k.shape[0]
        else:
            self.batch, self.seqlen_q = q.shape[0], q.shape[1]
            self.seqlen_k = int(max_seqlen_k) if self.paged else k.shape[1]
            self.total_q = self.total_k = 0
        window_left, window_right = clamp_window(int(window_left), int(window_right), self.seqlen_q, self.seqlen_k)
        self.as_tuple = (k.shape[-2], window_left, window_right, float(softcap),
                         0 if sink is None else sink.data_ptr(),
                         0 if cu_seqlens_q is None else cu_seqlens_q.data_ptr(),
                         0 if cu_seqlens_k is None else cu_seqlens_k.data_ptr(),
                         0 if seqused_k is None else seqused_k.data_ptr(), self.total_q, self.total_k)
        if self.paged:
            self.as_tuple += (block_table.data_ptr(), block_table.stride(0), k.shape[1], k.shape[0])

    def strides(self, t):
        """(batch, row, head) element strides: a packed tensor has no batch stride."""
        return (0, t.stride(0), t.stride(1)) if self.varlen else t.stride()[:3]

    def kv_strides(self, t):
        """k's / v's strides: a paged cache's batch stride is its page stride."""
        return t.stride()[:3] if self.paged else self.strides(t)

    def lse_shape(self, heads):
        return (heads, self.total_q) if self.varlen else (self.batch, heads, self.seqlen_q)


_PLAIN = dict(window_left=-1, window_right=-1, softcap=0.0, sink=None, cu_seqlens_q=None, cu_seqlens_k=None,
              seqused_k=None, max_seqlen_q=0, max_seqlen_k=0, block_table=None)
