"""Validation of the feature arguments (issue 13) for flashcore's FlashAttention-style API.

Every check raises a TypeError (wrong kind of thing) or ValueError (wrong value) that names the
function and the argument. Shape, dtype and layout checks read only metadata, so they run the
same under torch.compile, fake tensors and CUDA-graph capture. The checks on the *values* of
cu_seqlens / seqused_k (from 0, non-decreasing, within the tensors, max_seqlen large enough) need
a device-to-host read: check_lengths_on_device does them only in eager mode outside CUDA-graph
capture (a host read cannot be captured, and torch.compile cannot trace one without a graph
break); there the values are the caller's responsibility, as in FlashAttention.
"""

from __future__ import annotations

import math
import weakref

import torch

# Head dims: forward kernels are instantiated for KERNEL_HEAD_DIMS on every arch, backward ones
# for BWD_KERNEL_HEAD_DIMS (kernels/BUILD.bazel FWD_HEAD_DIMS and BWD_HEAD_DIMS; CPU tests keep
# them equal; sm90a also has 192 in both passes and 96 in the backward, which only the extension's
# registry needs to know),
# and each also runs every smaller multiple of 8 (16-byte rows), loading and storing only the
# call's columns -- never a padded copy of the inputs (kernels/flash_fwd_api.h). A call runs on
# the smallest instantiated head dim >= its own (_C.kernel_head_dim answers per arch and pass):
# 72..96 on the forward's 96 and the backward's 128 (sm90a: 96), 136..192 on sm90a's 192.
KERNEL_HEAD_DIMS = (64, 96, 128, 256)
BWD_KERNEL_HEAD_DIMS = (64, 128, 256)
MAX_HEAD_DIM = KERNEL_HEAD_DIMS[-1]
HEAD_DIM_MULTIPLE = 8
SUPPORTED_HEAD_DIMS = tuple(range(HEAD_DIM_MULTIPLE, MAX_HEAD_DIM + 1, HEAD_DIM_MULTIPLE))
_LOW_PRECISION = (torch.float16, torch.bfloat16)
_GRID_LIMIT = 65535


def _is_int(x) -> bool:
    """A Python int (or a symbolic one under torch.compile), not a bool. No try/except, so that
    dynamo traces it."""
    return isinstance(x, (int, torch.SymInt)) and not isinstance(x, bool)


def head_dim_error(fn, head_dim, name="head_dim") -> str:
    """The message for a head dim the kernels do not take (`name`: which one, e.g. v's); it names
    the supported set."""
    why = ""
    if head_dim > MAX_HEAD_DIM and head_dim % HEAD_DIM_MULTIPLE == 0:
        why = " (head dims above %d have no kernels)" % MAX_HEAD_DIM
    return "%s: %s must be a multiple of %d from %d to %d, got %d%s" % (
        fn, name, HEAD_DIM_MULTIPLE, HEAD_DIM_MULTIPLE, MAX_HEAD_DIM, head_dim, why)


def check_tensor(fn, name, t, dims, strides=True):
    """t is a low-precision tensor of `dims` dimensions with kernel-readable strides (those only
    with strides=True; check_layout does them)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, got %s" % (fn, name, type(t).__name__))
    if t.dim() != dims:
        layout = "(batch, seqlen, heads, head_dim)" if dims == 4 else "(total_tokens, heads, head_dim)"
        raise ValueError("%s: %s must be %d-D %s, got shape %s" % (fn, name, dims, layout, tuple(t.shape)))
    if t.dtype not in _LOW_PRECISION:
        raise TypeError("%s: %s must be float16 or bfloat16, got %s" % (fn, name, t.dtype))
    if t.numel() == 0:
        raise ValueError("%s: %s is empty (shape %s); every dimension must be >= 1" % (fn, name, tuple(t.shape)))
    if strides:
        check_layout(fn, name, t)


def check_layout(fn, name, t):
    """Unit stride on head_dim, the other strides multiples of 8 elements (16-byte rows)."""
    if t.stride(-1) != 1:
        raise ValueError("%s: %s must be contiguous in its last (head_dim) dimension, got strides %s; pass "
                         "%s.contiguous()" % (fn, name, t.stride(), name))
    if any(s % 8 for s in t.stride()[:-1]):
        raise ValueError("%s: %s's strides %s must be multiples of 8 elements (16-byte rows); pass %s.contiguous()"
                         % (fn, name, t.stride(), name))


def check_qkv(fn, q, k, v, varlen):
    """Shapes of q (.., Hq, D), k (.., Hk, D) and v (.., Hk, Dv), GQA (Hq % Hk == 0), one dtype
    and device. v's head dim Dv may differ from q's and k's (DeepSeek's multi-head latent attention
    trains with D 192 and Dv 128; out then has Dv): both are multiples of 8 up to 256, and the call
    runs on the kernels of max(D, Dv) (kernels/flash_fwd_api.h). Returns (heads_q, heads_kv,
    head_dim)."""
    dims = 3 if varlen else 4
    # Layouts after the shapes: a head dim that is not a multiple of 8 gets the head-dim error,
    # not the 16-byte-row one its strides would also give.
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(fn, name, t, dims, strides=False)
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError("%s: q, k and v must have one dtype, got q %s, k %s, v %s" % (fn, q.dtype, k.dtype, v.dtype))
    heads, head_dim = q.shape[-2], q.shape[-1]
    heads_kv = k.shape[-2]
    if not varlen:
        for name, t in (("k", k), ("v", v)):
            if t.shape[0] != q.shape[0]:
                raise ValueError("%s: %s has batch %d but q has batch %d" % (fn, name, t.shape[0], q.shape[0]))
    if v.shape[:-1] != k.shape[:-1]:
        raise ValueError("%s: k and v must have one shape up to head_dim, got k %s and v %s"
                         % (fn, tuple(k.shape), tuple(v.shape)))
    if k.shape[-1] != head_dim:
        raise ValueError("%s: k has head_dim %d but q has %d" % (fn, k.shape[-1], head_dim))
    if heads % heads_kv:
        raise ValueError("%s: q's heads (%d) must be a multiple of k/v's heads (%d) (grouped-query attention)"
                         % (fn, heads, heads_kv))
    if head_dim not in SUPPORTED_HEAD_DIMS:
        raise ValueError(head_dim_error(fn, head_dim))
    if v.shape[-1] not in SUPPORTED_HEAD_DIMS:
        raise ValueError(head_dim_error(fn, v.shape[-1], "v's head_dim"))
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_layout(fn, name, t)
    if heads > _GRID_LIMIT or (not varlen and q.shape[0] > _GRID_LIMIT):
        raise ValueError("%s: batch and heads must each be <= %d, got shape %s" % (fn, _GRID_LIMIT, tuple(q.shape)))
    if not (q.device == k.device == v.device):
        raise ValueError("%s: q, k and v must be on one device, got q on %s, k on %s, v on %s"
                         % (fn, q.device, k.device, v.device))
    return heads, heads_kv, head_dim


def check_device(fn, q):
    """Last of the checks, so that shape errors read the same on every device."""
    if q.device.type != "cuda":
        raise ValueError("%s: q, k and v must be CUDA tensors, got tensors on %s" % (fn, q.device))


def check_scale(fn, softmax_scale, head_dim) -> float:
    if softmax_scale is None:
        return 1.0 / math.sqrt(head_dim)
    if isinstance(softmax_scale, bool) or not isinstance(softmax_scale, (int, float)) \
            or not math.isfinite(softmax_scale):
        raise ValueError("%s: softmax_scale must be a finite number or None, got %r" % (fn, softmax_scale))
    return float(softmax_scale)


def check_flag(fn, name, value) -> bool:
    if value is not True and value is not False:
        raise TypeError("%s: %s must be a bool, got %s" % (fn, name, type(value).__name__))
    return value


def check_window(fn, window_size):
    """FlashAttention's (left, right), each an int >= -1 (-1: unbounded). Returns the pair."""
    if not isinstance(window_size, (tuple, list)) or len(window_size) != 2:
        raise TypeError("%s: window_size must be a pair (left, right) of ints, got %r" % (fn, window_size))
    left, right = window_size
    for side, w in (("left", left), ("right", right)):
        if not _is_int(w):
            raise TypeError("%s: window_size's %s must be an int, got %r" % (fn, side, w))
        if w < -1:
            raise ValueError("%s: window_size's %s must be >= -1 (-1: unbounded), got %d" % (fn, side, w))
    return int(left), int(right)


def clamp_window(window_left: int, window_right: int, seqlen_q: int, seqlen_k: int):
    """The window as the kernels take it: a side wider than the sequences is the same window (left
    >= seqlen_k: row i's first key i + seqlen_k - seqlen_q - left is below 0 for every row; right
    >= seqlen_q: its last key is past seqlen_k - 1), so it is cut to that width. The kernels add
    the sides to 32-bit row positions: window_size=(2**31 - 1, ...) would overflow there and hide
    every key. seqlen_q / seqlen_k: the call's longest (max_seqlen_* for packed batches, the cache's
    capacity for a KV cache). -1 (unbounded) stays -1."""
    if window_left > seqlen_k:
        window_left = seqlen_k
    if window_right > seqlen_q:
        window_right = seqlen_q
    return window_left, window_right


def check_softcap(fn, softcap) -> float:
    if isinstance(softcap, bool) or not isinstance(softcap, (int, float)) or not math.isfinite(softcap):
        raise TypeError("%s: softcap must be a finite float (0.0 disables it), got %r" % (fn, softcap))
    if softcap < 0:
        raise ValueError("%s: softcap must be >= 0 (0.0 disables it), got %r" % (fn, softcap))
    return float(softcap)


def check_unsupported(fn, dropout_p, alibi_slopes):
    """Features flashcore does not have yet: a clear NotImplementedError, never silently ignored."""
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, (int, float)) or not 0 <= dropout_p <= 1:
        raise ValueError("%s: dropout_p must be a number in [0, 1], got %r" % (fn, dropout_p))
    if dropout_p > 0:
        raise NotImplementedError("%s: dropout (dropout_p=%r) is not implemented in flashcore; pass dropout_p=0.0"
                                  % (fn, dropout_p))
    if alibi_slopes is not None:
        raise NotImplementedError("%s: ALiBi (alibi_slopes) is not implemented in flashcore; pass alibi_slopes=None"
                                  % fn)


def check_sink(fn, sink, heads, device):
    """learnable_sink: a floating (heads,) tensor on q's device, or None."""
    if sink is None:
        return
    if not isinstance(sink, torch.Tensor):
        raise TypeError("%s: learnable_sink must be a torch.Tensor or None, got %s" % (fn, type(sink).__name__))
    if not sink.is_floating_point():
        raise TypeError("%s: learnable_sink must be a floating-point tensor, got %s" % (fn, sink.dtype))
    if tuple(sink.shape) != (heads,):
        raise ValueError("%s: learnable_sink must have shape (heads,) = (%d,) (one logit per query head), got %s"
                         % (fn, heads, tuple(sink.shape)))
    if sink.device != device:
        raise ValueError("%s: learnable_sink must be on q's device %s, got %s" % (fn, device, sink.device))


def check_index_vector(fn, name, t, length, device):
    """An int32 1-D tensor of `length` entries on `device` (cu_seqlens_*, seqused_k)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, got %s" % (fn, name, type(t).__name__))
    if t.dtype != torch.int32:
        raise TypeError("%s: %s must be an int32 tensor, got %s" % (fn, name, t.dtype))
    if t.dim() != 1:
        raise ValueError("%s: %s must be 1-D, got shape %s" % (fn, name, tuple(t.shape)))
    if length is not None and t.shape[0] != length:
        raise ValueError("%s: %s must have %d entries, got %d" % (fn, name, length, t.shape[0]))
    if t.device != device:
        raise ValueError("%s: %s must be on q's device %s, got %s" % (fn, name, device, t.device))
    if not t.is_contiguous():
        raise ValueError("%s: %s must be contiguous; pass %s.contiguous()" % (fn, name, name))


def check_max_seqlen(fn, name, value) -> int:
    """A host int. A one-element integer tensor is accepted in eager mode (flash_attn takes one
    too, and transformers passes cu_seqlens.diff().max() outside tracing): reading it syncs."""
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_floating_point() \
            and value.dtype != torch.bool and device_reads_allowed(value):
        value = int(value.item())
    if not _is_int(value):
        raise TypeError("%s: %s must be a Python int (or a one-element integer tensor in eager mode), got %s"
                        % (fn, name, type(value).__name__))
    value = int(value)
    if value < 1:
        raise ValueError("%s: %s must be >= 1, got %d" % (fn, name, value))
    return value


def check_varlen_metadata(fn, q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
    """Metadata checks of a packed batch; returns (batch, max_seqlen_q, max_seqlen_k)."""
    check_index_vector(fn, "cu_seqlens_q", cu_seqlens_q, None, q.device)
    if cu_seqlens_q.shape[0] < 2:
        raise ValueError("%s: cu_seqlens_q must have batch + 1 >= 2 entries, got %d" % (fn, cu_seqlens_q.shape[0]))
    batch = cu_seqlens_q.shape[0] - 1
    if batch > _GRID_LIMIT:
        raise ValueError("%s: the batch (len(cu_seqlens_q) - 1 = %d) must be <= %d" % (fn, batch, _GRID_LIMIT))
    check_index_vector(fn, "cu_seqlens_k", cu_seqlens_k, batch + 1, q.device)
    if seqused_k is not None:
        check_index_vector(fn, "seqused_k", seqused_k, batch, q.device)
    max_seqlen_q = check_max_seqlen(fn, "max_seqlen_q", max_seqlen_q)
    max_seqlen_k = check_max_seqlen(fn, "max_seqlen_k", max_seqlen_k)
    return batch, max_seqlen_q, max_seqlen_k


def device_reads_allowed(*tensors) -> bool:
    """True where reading tensor values on the host is possible and harmless: eager mode, real
    (not fake/meta) tensors, and no CUDA-graph capture on the current stream."""
    if torch.compiler.is_compiling():
        return False
    if torch._C._len_torch_dispatch_stack() != 0 or torch._C._get_tracing_state() is not None:
        return False
    for t in tensors:
        if t is None:
            continue
        if type(t) is not torch.Tensor or t.device.type == "meta":
            return False
        if t.is_cuda and torch.cuda.is_current_stream_capturing():
            return False
    return True


# Packed-batch metadata already checked, by cu_seqlens_q tensor: a model passes the same
# cu_seqlens tensors to each attention layer of a step, and every check is a device-to-host copy
# that synchronises the host with the GPU. (Measured, H100: checked on every call, the eager varlen
# forward ran 15-23% below its CUDA-graph kernel time at 4 x 4096 tokens, d64 / d128 --
# docs/results/2026-11-24-h100-bwd-rows-persistent.md.) An entry holds the other tensors (weakly)
# and every version counter and size the checks read, so an in-place change of any of them, another
# cu_seqlens_k or seqused_k, other row counts or other max_seqlen_* check again.
# (Keyed by id, with the tensor held weakly: a WeakKeyDictionary would compare tensors with ==.)
# The entry also keeps (cu_seqlens_q[-1], cu_seqlens_k[-1]) for packed_ends.
_LENGTHS_CHECKED = {}  # id(cu_seqlens_q) -> (its weakref, cu_seqlens_k's, seqused_k's or None, key, ends)


def _lengths_key(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
    return (cu_seqlens_q._version, cu_seqlens_k._version, None if seqused_k is None else seqused_k._version,
            cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr(), None if seqused_k is None else seqused_k.data_ptr(),
            q.shape[0], k.shape[0], max_seqlen_q, max_seqlen_k)


def _lengths_cached(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k) -> bool:
    entry = _LENGTHS_CHECKED.get(id(cu_seqlens_q))
    if entry is None:
        return False
    ref_q, ref_k, ref_used, key, _ = entry
    # The entry's seqused_k (None: checked without one) must be this call's: a call adding one to
    # cu_seqlens checked without it checks again (it used to call the absent weakref: TypeError).
    same_used = ref_used is None if seqused_k is None else ref_used is not None and ref_used() is seqused_k
    return (ref_q() is cu_seqlens_q and ref_k() is cu_seqlens_k and same_used
            and key == _lengths_key(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k))


def check_lengths_on_device(fn, q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
    """Value checks of cu_seqlens / seqused_k (one device-to-host copy, once per set of tensors
    and sizes: _LENGTHS_CHECKED). Skipped under torch.compile, fake tensors and CUDA-graph capture
    (device_reads_allowed); returns whether they ran or had passed before."""
    if not device_reads_allowed(q, cu_seqlens_q, cu_seqlens_k, seqused_k):
        return False
    if _lengths_cached(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
        return True
    parts = [cu_seqlens_q, cu_seqlens_k] + ([seqused_k] if seqused_k is not None else [])
    values = torch.cat(parts).tolist()  # one synchronising copy for all of them
    n = cu_seqlens_q.shape[0]
    cu_q, cu_k, used = values[:n], values[n:2 * n], values[2 * n:]
    for name, cu, rows, max_seqlen, max_name in (("cu_seqlens_q", cu_q, q.shape[0], max_seqlen_q, "max_seqlen_q"),
                                                 ("cu_seqlens_k", cu_k, k.shape[0], max_seqlen_k, "max_seqlen_k")):
        if cu[0] != 0:
            raise ValueError("%s: %s must start at 0, got %d" % (fn, name, cu[0]))
        lengths = [b - a for a, b in zip(cu[:-1], cu[1:])]
        if min(lengths) < 0:
            b = min(range(len(lengths)), key=lengths.__getitem__)
            raise ValueError("%s: %s must be non-decreasing, got %d then %d at entries %d, %d"
                             % (fn, name, cu[b], cu[b + 1], b, b + 1))
        if cu[-1] > rows:
            raise ValueError("%s: %s[-1] = %d exceeds the %d rows of %s" % (fn, name, cu[-1], rows, name[-1]))
        if max(lengths) > max_seqlen:
            raise ValueError("%s: %s = %d is less than the longest sequence in %s (%d)"
                             % (fn, max_name, max_seqlen, name, max(lengths)))
    for b, u in enumerate(used):
        if u < 0:
            raise ValueError("%s: seqused_k must be >= 0, got %d for sequence %d" % (fn, u, b))
    ident = id(cu_seqlens_q)
    _LENGTHS_CHECKED[ident] = (weakref.ref(cu_seqlens_q, lambda _: _LENGTHS_CHECKED.pop(ident, None)),
                               weakref.ref(cu_seqlens_k), None if seqused_k is None else weakref.ref(seqused_k),
                               _lengths_key(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k),
                               (cu_q[-1], cu_k[-1]))
    return True


def packed_ends(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
    """(cu_seqlens_q[-1], cu_seqlens_k[-1]) as host ints where check_lengths_on_device has checked
    these tensors at these sizes (no device read here), else None. A write to cu_seqlens that
    torch does not see (no version bump) leaves the cached values stale, as it does the checks."""
    if not _lengths_cached(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k):
        return None
    return _LENGTHS_CHECKED[id(cu_seqlens_q)][4]
