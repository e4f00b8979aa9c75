"""flashcore.attention: device/arch selection per call, the test-only switches, the forward custom op
and its autograd registration (the backward op is flashcore._backward; the build's libraries and
select_arch are in flashcore._arch, the input checks and the kernels' feature tuple in
flashcore._inputs, both re-exported here)."""

from __future__ import annotations

import functools
import math
import os
import warnings
from typing import Optional

import torch

from flashcore._checks import SUPPORTED_HEAD_DIMS  # every multiple of 8 from 8 to 256

try:
    from flashcore import _C
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "flashcore: cannot import the compiled extension flashcore._C (%s). It is built by "
        "`tools/bazel build //py/flashcore:_C.so`; for the GPU machines' Python 3.12 use "
        "--config=gpu_target (docs/GPU.md)." % e
    ) from e

# After _C: flashcore._arch imports the extension too (a missing one is reported above). Both
# modules' names are re-exported: flashcore/__init__.py, kvcache.py, _backward.py and the tests
# reach them through this module.
from flashcore._arch import PTX_ARCH, _compiled_archs, build_info, select_arch  # noqa: F401
from flashcore._inputs import _DTYPE_NAMES, _GRID_LIMIT, _PLAIN, _Features, _check_inputs  # noqa: F401


_ptx_warned_gpus = set()  # GPU names already warned about (one warning per GPU model and process)


@functools.cache
def _device_arch(device_index: int) -> str:
    """Per-device library choice, computed once (this is on every call's path)."""
    capability = torch.cuda.get_device_capability(device_index)
    arch = select_arch(capability)
    if arch == PTX_ARCH:
        name = torch.cuda.get_device_name(device_index)
        if name not in _ptx_warned_gpus:
            _ptx_warned_gpus.add(name)
            warnings.warn(
                "flashcore: this build has no kernels compiled for the %s (compute capability %d.%d); "
                "it runs the portable %s kernels (Ampere's mma.sync code as PTX, JIT-compiled by the "
                "driver on first use). They are correct but not tuned for this GPU: expect less speed "
                "than a native build." % (name, capability[0], capability[1], PTX_ARCH),
                RuntimeWarning, stacklevel=2)
    return arch


# Test-only: run every call, forward and backward, through one named kernel library (e.g.
# "sm80_ptx", the portable PTX one, on a GPU that has SASS here; see kernels/BUILD.bazel).
# Read once from FLASHCORE_FORCE_ARCH at import; tests switch it with _set_forced_arch. Never set in
# production: it bypasses select_arch's capability checks.
FORCE_ARCH_ENV = "FLASHCORE_FORCE_ARCH"
_forced_arch = None


def _set_forced_arch(arch):
    """Test-only. arch: a compiled library name (build_info()['kernels'][i]['arch']) or None."""
    global _forced_arch
    if arch is not None and arch not in _compiled_archs():
        raise ValueError("flashcore: %s=%r names no compiled kernel library (compiled: %s)"
                         % (FORCE_ARCH_ENV, arch, ", ".join(sorted(_compiled_archs()))))
    _forced_arch = arch


# Test-only: the sm90a forward's tile for every later call (kernels/hopper/tile_policy.h
# pick_fwd_tile). None lets each call pick by its shape; the GPU suites force "default" to run the
# two-consumer tile on the small shapes that otherwise take the few-tiles tile.
FWD_TILES = {None: 0, "default": 1, "long_rows": 2, "few_tiles": 3, "short_rows": 4}


def _set_forced_fwd_tile(tile):
    """Test-only. tile: None, "default", "long_rows", "few_tiles" or "short_rows" (where the head dim
    has it; elsewhere the default tile runs)."""
    if tile not in FWD_TILES:
        raise ValueError("flashcore: forced forward tile must be one of %s, got %r" % (sorted(map(str, FWD_TILES)), tile))
    _C.set_forced_fwd_tile(FWD_TILES[tile])


def _set_pack_gqa(enabled):
    """Test-only: whether the sm90a forward may pack a GQA group's query heads into one tile (on by
    default; kernels/hopper/fwd_launch.cuh). Off runs the unpacked kernel path on the same shapes."""
    _C.set_fwd_pack_gqa(bool(enabled))


# Test-only (tests/gpu_sanitizer_test.py): outputs start as NaN instead of uninitialised memory.
# compute-sanitizer's initcheck does not see the Hopper kernels' TMA stores (cp.async.bulk.tensor):
# every later read of a TMA-written output is reported as uninitialised (measured: 32,768 reports
# for one sm90a forward's out, 0 for the sm80_ptx kernel's register stores). A fill before the
# kernel leaves initcheck judging every other read (inputs, lse, the backward's scratch and
# semaphores), and a NaN still in an output afterwards shows an element the kernel never wrote.
_poison_outputs = False


def _set_poison_outputs(on: bool) -> None:
    global _poison_outputs
    _poison_outputs = bool(on)


def _new_output(shape, dtype, device):
    if _poison_outputs:
        return torch.full(shape, float("nan"), dtype=dtype, device=device)
    return torch.empty(shape, dtype=dtype, device=device)


def _arch_for(device_index: int) -> str:
    return _forced_arch or _device_arch(device_index)


def _device_index(t) -> int:
    """The CUDA device index of t's device, the current device where it names none."""
    return t.device.index if t.device.index is not None else torch.cuda.current_device()


def _raw_stream(device_index: int) -> int:
    """The current CUDA stream of a device as an integer handle, without building a Stream object."""
    global _raw_stream
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:  # pragma: no cover - older torch
        def raw(index):
            return torch.cuda.current_stream(index).cuda_stream
    _raw_stream = raw
    return raw(device_index)


def attention_into(q, k, v, out, lse, causal: bool, softmax_scale: float) -> None:
    """Runs the kernel writing into caller-provided out (batch, seqlen_q, heads, head_dim; q's
    dtype, unit stride on head_dim) and lse (float32, contiguous (batch, heads, seqlen_q)).
    Inputs must already have passed _check_inputs; the tests use this to poison outputs."""
    batch, seqlen_q, heads, head_dim = q.shape
    if out.shape != q.shape or out.dtype != q.dtype or out.device != q.device or out.stride(-1) != 1 \
            or any(s % 8 for s in out.stride()[:3]):
        raise ValueError("flashcore: out must match q's shape, dtype and device with 16-byte rows")
    if lse.shape != (batch, heads, seqlen_q) or lse.dtype != torch.float32 or lse.device != q.device \
            or not lse.is_contiguous():
        raise ValueError("flashcore: lse must be a contiguous float32 tensor of shape (batch, heads, seqlen_q)")
    _launch(q, k, v, out, lse, causal, softmax_scale)


def _launch(q, k, v, out, lse, causal: bool, softmax_scale: float, out_resid=None, **features) -> None:
    """The per-call path: pointer alignment, device, arch, and the kernel launch. Shapes and
    layouts of out/lse are the caller's responsibility (attention_into checks them; the custom
    op allocates them itself). out_resid (optional, out's shape and strides): the kernel also
    writes O's rounding residual there, for the backward. `features`: the keywords of _PLAIN
    (attention_core's)."""
    f = _Features(q, k, causal, **{**_PLAIN, **features})
    heads, head_dim = q.shape[-2], q.shape[-1]
    for name, t in (("q", q), ("k", k), ("v", v), ("out", out)):
        if t.data_ptr() % 16:
            raise ValueError("flashcore.attention: %s's data is not 16-byte aligned; pass %s.clone()" % (name, name))
    device = q.get_device()
    # Positional (pybind11 keyword matching costs microseconds per call); order as in _C.fwd.
    _C.fwd(device, _arch_for(device), _DTYPE_NAMES[q.dtype],
           q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr(),
           f.batch, heads, f.seqlen_q, f.seqlen_k, head_dim,
           f.strides(q), f.kv_strides(k), f.kv_strides(v), f.strides(out),
           softmax_scale, f.masked, _raw_stream(device), f.as_tuple,
           0 if out_resid is None else out_resid.data_ptr(), v.shape[-1])


@torch.library.custom_op("flashcore::attention_fwd", mutates_args=())
def _attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                   softmax_scale: float, deterministic: bool = False, window_left: int = -1,
                   window_right: int = -1, softcap: float = 0.0, sink: Optional[torch.Tensor] = None,
                   cu_seqlens_q: Optional[torch.Tensor] = None, cu_seqlens_k: Optional[torch.Tensor] = None,
                   seqused_k: Optional[torch.Tensor] = None, max_seqlen_q: int = 0,
                   max_seqlen_k: int = 0, save_residual: bool = False
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Returns (out, lse, out_resid). With save_residual (the caller will run the backward),
    out_resid is O's rounding residual (out's shape, q's dtype; FwdParams::o_resid): the backward
    takes D = rowsum(dO * O) from out + out_resid instead of the rounded out, whose residue
    otherwise dominates the gradients where dS = P (dP - D) nearly cancels (a row that sees one
    or two keys; a sink's gradient). It costs one more O-sized write and O-sized saved tensor.
    Without it, out_resid is empty."""
    # `deterministic` only travels to the backward (through setup_context); the forward is
    # deterministic anyway.
    out_shape = _out_shape(q, v)
    out = _new_output(out_shape, q.dtype, q.device)
    # Packed: lse rows past cu_seqlens_q[-1] belong to no sequence and no kernel writes them; -inf
    # there (an empty row's value) keeps callers from reading uninitialised memory.
    if cu_seqlens_q is not None:
        lse = torch.full(_lse_shape(q, cu_seqlens_q), float("-inf"), dtype=torch.float32, device=q.device)
    else:
        lse = torch.empty(_lse_shape(q, cu_seqlens_q), dtype=torch.float32, device=q.device)
    out_resid = torch.empty(out_shape if save_residual else (0,), dtype=q.dtype, device=q.device)
    _launch(q, k, v, out, lse, causal, softmax_scale, out_resid=out_resid if save_residual else None,
            window_left=window_left, window_right=window_right,
            softcap=softcap, sink=sink, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
            seqused_k=seqused_k, max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k)
    return out, lse, out_resid


def _out_shape(q, v):
    """out: q's rows and heads, v's head dim (which may differ from q's: FwdParams::head_dim_v)."""
    return q.shape[:-1] + (v.shape[-1],)


def _lse_shape(q, cu_seqlens_q):
    """lse: (batch, heads, seqlen_q) dense, (heads, total_q) packed (FlashAttention's layouts)."""
    if cu_seqlens_q is not None:
        return (q.shape[1], q.shape[0])
    return (q.shape[0], q.shape[2], q.shape[1])


@_attention_fwd.register_fake
def _attention_fwd_fake(q, k, v, causal, softmax_scale, deterministic=False, window_left=-1, window_right=-1,
                        softcap=0.0, sink=None, cu_seqlens_q=None, cu_seqlens_k=None, seqused_k=None,
                        max_seqlen_q=0, max_seqlen_k=0, save_residual=False):
    return (q.new_empty(_out_shape(q, v)), q.new_empty(_lse_shape(q, cu_seqlens_q), dtype=torch.float32),
            q.new_empty(_out_shape(q, v) if save_residual else (0,)))


_FEATURE_ARGS = ("window_left", "window_right", "softcap", "sink", "cu_seqlens_q", "cu_seqlens_k", "seqused_k",
                 "max_seqlen_q", "max_seqlen_k")


def _setup_context(ctx, inputs, output):
    q, k, v, causal, softmax_scale = inputs[:5]
    deterministic = inputs[5] if len(inputs) > 5 else False
    features = dict(zip(_FEATURE_ARGS, inputs[6:]))
    out, lse, out_resid = output
    ctx.mark_non_differentiable(out_resid)
    ctx.save_for_backward(q, k, v, out, lse, features.get("sink"), features.get("cu_seqlens_q"),
                          features.get("cu_seqlens_k"), features.get("seqused_k"),
                          out_resid if out_resid.numel() else None)
    ctx.causal = causal
    ctx.softmax_scale = softmax_scale
    ctx.deterministic = deterministic
    ctx.scalars = {name: features.get(name, _PLAIN[name]) for name in
                   ("window_left", "window_right", "softcap", "max_seqlen_q", "max_seqlen_k")}
    # An unused output (usually lse) gets None instead of a materialised zero tensor: no memset
    # per step, and the kernels then skip the dlse term.
    ctx.set_materialize_grads(False)


def _backward(ctx, grad_out, grad_lse, _grad_out_resid):
    q, k, v, out, lse, sink, cu_seqlens_q, cu_seqlens_k, seqused_k, out_resid = ctx.saved_tensors
    if grad_out is None:  # only lse was used
        grad_out = torch.zeros_like(out)
    sc = ctx.scalars
    dq, dk, dv, dsink = torch.ops.flashcore.attention_bwd(
        grad_out, q, k, v, out, lse, grad_lse, ctx.causal, ctx.softmax_scale, ctx.deterministic,
        sc["window_left"], sc["window_right"], sc["softcap"], sink, cu_seqlens_q, cu_seqlens_k, seqused_k,
        sc["max_seqlen_q"], sc["max_seqlen_k"], out_resid)
    return (dq, dk, dv, None, None, None, None, None, None, dsink if sink is not None else None,
            None, None, None, None, None, None)


torch.library.register_autograd("flashcore::attention_fwd", _backward, setup_context=_setup_context)


def attention_core(q, k, v, *, softmax_scale, causal, window_size=(-1, -1), softcap=0.0, sink=None,
                   cu_seqlens_q=None, cu_seqlens_k=None, seqused_k=None, max_seqlen_q=None, max_seqlen_k=None,
                   deterministic=False):
    """Attention with every run-time feature (issue 13), differentiable in q, k, v and sink.
    Inputs must already be validated (flashcore.api does it). Dense: q (B, Sq, Hq, D), k/v
    (B, Sk, Hk, D); packed: q (total_q, Hq, D), k/v (total_k, Hk, D) with int32 cu_seqlens_q/k
    and host-int max_seqlen_q/k. window_size: FlashAttention's (left, right), -1 unbounded;
    causal sets right to 0. sink: (Hq,) logits, any float dtype (float32 inside). Returns (out,
    lse): lse float32 (B, Hq, Sq) dense, (Hq, total_q) packed."""
    if sink is not None and sink.dtype != torch.float32:
        sink = sink.float()
    if sink is not None:
        sink = sink.contiguous()
    out, lse, _ = torch.ops.flashcore.attention_fwd(
        q, k, v, bool(causal), float(softmax_scale), bool(deterministic), int(window_size[0]), int(window_size[1]),
        float(softcap), sink, cu_seqlens_q, cu_seqlens_k, seqused_k,
        int(max_seqlen_q or 0), int(max_seqlen_k or 0),
        _keep_residual(q, k, v, sink, window_size, causal, cu_seqlens_q, max_seqlen_k))
    return out, lse


def _wants_grad(*tensors) -> bool:
    """Whether autograd will record this call."""
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


# The backward's D = rowsum(dO * O) from the rounded O leaves an absolute residue of about one
# rounding of |dO||O| per row: as FlashAttention's, harmless where rows see many keys, but it
# dominates dS = P (dP - D) where a row's softmax is nearly one key (a row that sees a few keys),
# and a sink's gradient taken from D sums it over every row of a head. There the forward keeps O's
# rounding residual (_attention_fwd's save_residual) -- not always: writing it costs 2-23% of a
# training forward at 16k tokens on an H100 (docs/PERF.md, "D from the O residual"), more where a
# window leaves each row few keys to compute.
_RESIDUAL_MAX_KEYS = 16
# Test-only (kernels/sm80/bwd_launch.cuh sm90_mma_sync_requested, read once per process there too):
# every sm90a backward runs the mma.sync kernel, which takes a sink's gradient from D.
_SM90_BWD_MMA_SYNC = os.environ.get("FLASHCORE_BWD_SM90_MMA_SYNC") == "1"


def _sink_grad_from_d(q) -> bool:
    """Whether the backward of a call on q's device takes a sink's gradient from D = rowsum(dO * O).
    The sm90a backward kernels sum it from their fp32 P and dP instead (kSinkGrad,
    kernels/hopper/bwd_launch.cuh), so there a sink needs no residual; the mma.sync libraries (sm80,
    sm89 and the portable PTX one) take it from D. Not on a CUDA device (meta tensors): assumed."""
    if q.device.type != "cuda":
        return True
    return _arch_for(_device_index(q)) != "sm90a" or _SM90_BWD_MMA_SYNC


def _residual_wanted(q, k, sink, window_size, causal, cu_seqlens_q, max_seqlen_k) -> bool:
    """Whether a training forward of this call keeps O's rounding residual for its backward."""
    if sink is not None and _sink_grad_from_d(q):
        return True
    keys = int(max_seqlen_k or 0) if cu_seqlens_q is not None else k.shape[1]
    left, right = int(window_size[0]), 0 if causal else int(window_size[1])
    if left >= 0 and right >= 0:
        keys = min(keys, left + right + 1)
    return keys <= _RESIDUAL_MAX_KEYS


def _keep_residual(q, k, v, sink, window_size, causal, cu_seqlens_q, max_seqlen_k) -> bool:
    return _wants_grad(q, k, v, sink) and _residual_wanted(q, k, sink, window_size, causal, cu_seqlens_q,
                                                           max_seqlen_k)


_Tensor = torch.Tensor
_is_compiling = torch.compiler.is_compiling
_is_grad_enabled = torch.is_grad_enabled
_is_tracing = torch._C._get_tracing_state
_dispatch_stack_len = torch._C._len_torch_dispatch_stack
_function_mode_enabled = torch._C._is_torch_function_mode_enabled
_FLOAT32 = torch.float32
_DEFAULT_SCALE = {d: 1.0 / math.sqrt(d) for d in SUPPORTED_HEAD_DIMS}  # as _check_inputs computes it


def _direct(q, k, v, causal, softmax_scale, return_lse):
    """The eager fast path: launches without the custom-op dispatcher and returns out, or (out,
    lse) with return_lse, or None for anything it does not handle itself (then the caller runs
    _check_inputs, which raises the precise error, and the custom op). Its checks are the same as
    _check_inputs' and _launch's, only cheaper; an input they are unsure about goes the slow way.
    Without return_lse no lse is allocated: the kernels skip a null lse."""
    dtype = q.dtype
    if k.dtype is not dtype or v.dtype is not dtype or (causal is not True and causal is not False):
        return None
    dtype_name = _DTYPE_NAMES.get(dtype)
    qs = q.shape
    ks = k.shape
    if dtype_name is None or len(qs) != 4 or len(ks) != 4 or v.shape != ks:
        return None
    batch, seqlen_q, heads, head_dim = qs
    seqlen_k = ks[1]
    if ks[0] != batch or ks[2] != heads or ks[3] != head_dim or head_dim not in _DEFAULT_SCALE \
            or seqlen_q < 1 or seqlen_k < 1 or not 0 < batch <= _GRID_LIMIT or not 0 < heads <= _GRID_LIMIT:
        return None
    if softmax_scale is None:
        softmax_scale = _DEFAULT_SCALE[head_dim]
    elif type(softmax_scale) is not float or softmax_scale - softmax_scale != 0.0:  # not finite
        return None
    if not (q.is_cuda and k.is_cuda and v.is_cuda):
        return None
    device = q.get_device()
    if k.get_device() != device or v.get_device() != device:
        return None
    qst = q.stride()
    kst = k.stride()
    vst = v.stride()
    if qst[3] != 1 or kst[3] != 1 or vst[3] != 1 \
            or (qst[0] | qst[1] | qst[2] | kst[0] | kst[1] | kst[2] | vst[0] | vst[1] | vst[2]) & 7:
        return None
    q_ptr = q.data_ptr()
    k_ptr = k.data_ptr()
    v_ptr = v.data_ptr()
    if (q_ptr | k_ptr | v_ptr) & 15:
        return None
    out = _new_output(qs, dtype, q.device) if _poison_outputs else q.new_empty(qs)
    lse = q.new_empty((batch, heads, seqlen_q), dtype=_FLOAT32) if return_lse else None
    row = heads * head_dim
    _C.fwd(device, _forced_arch or _device_arch(device), dtype_name,
           q_ptr, k_ptr, v_ptr, out.data_ptr(), lse.data_ptr() if return_lse else 0,
           batch, heads, seqlen_q, seqlen_k, head_dim,
           qst[:3], kst[:3], vst[:3], (seqlen_q * row, row, head_dim),
           softmax_scale, causal, _raw_stream(device))
    return (out, lse) if return_lse else out


def _may_launch_directly(q, k, v):
    """Whether an eager call on q, k, v may skip the custom op: plain tensors that autograd need
    not record. torch.compile (is_compiling first, so dynamo folds the rest away), jit tracing,
    dispatch/function modes (fake tensors, make_fx), tensor subclasses and inputs that require grad
    go through torch.ops.flashcore.attention_fwd (and so get the backward)."""
    return not _is_compiling() and type(q) is _Tensor and type(k) is _Tensor and type(v) is _Tensor \
        and not (_is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad)) \
        and _dispatch_stack_len() == 0 and not _function_mode_enabled() and _is_tracing() is None


_NO_WINDOW = (-1, -1)


def attention(q, k, v, *, causal=False, softmax_scale=None, return_lse=False, deterministic=False,
              window_size=_NO_WINDOW, softcap=0.0, learnable_sink=None):
    """FlashAttention forward, differentiable in q, k and v (and through the returned lse).

    q: (batch, seqlen_q, heads, head_dim); k, v: (batch, seqlen_k, heads, head_dim); CUDA,
    float16 or bfloat16, head_dim a multiple of 8 from 8 to 256 (SUPPORTED_HEAD_DIMS: 64, 128 and
    256 have kernels -- and 96 in the forward, 192 in the Hopper forward -- the others run on the
    next one up with predicated loads and stores), unit stride on head_dim. causal masks are aligned
    bottom-right. softmax_scale defaults to 1/sqrt(head_dim). Returns out (batch, seqlen_q, heads,
    head_dim) in the input dtype, and with return_lse=True also the natural-log log-sum-exp
    (batch, heads, seqlen_q) in float32 (-inf for a query row that sees no key; its out is 0).

    deterministic=True makes the backward's dQ reduction run in a fixed order (bitwise-identical
    gradients on repeated runs) at some speed cost; see docs/PERF.md. The default uses atomics.

    Features (issue 13; flashcore.flash_attn_func documents them): k/v may have fewer heads than q
    (GQA/MQA, a divisor of q's), v its own head dim (out then has it; DeepSeek's MLA: q/k 192, v
    128), window_size=(left, right), softcap, learnable_sink (heads,).
    Calls that use one go through flashcore.api's checks and attention_core; plain calls keep the
    direct path below.
    """
    # Identity first (eager, the default: no tuple compare); dynamo rebuilds the tuple, so equality.
    if (window_size is not _NO_WINDOW and window_size != _NO_WINDOW) or softcap != 0.0 \
            or learnable_sink is not None:
        return _api.attention_with_features(q, k, v, causal, softmax_scale, return_lse, deterministic,
                                            window_size, softcap, learnable_sink)
    if deterministic is not True and deterministic is not False:
        raise TypeError("flashcore.attention: deterministic must be a bool, got %s" % type(deterministic).__name__)
    # Eager calls on plain tensors that autograd need not record launch directly: the custom-op
    # dispatcher costs more than the kernel at small shapes (`deterministic` only matters to the
    # backward, which such calls do not have).
    if _may_launch_directly(q, k, v):
        res = _direct(q, k, v, causal, softmax_scale, return_lse)
        if res is not None:
            return res
    if isinstance(q, _Tensor) and isinstance(k, _Tensor) and isinstance(v, _Tensor) \
            and q.dim() == k.dim() == v.dim() == 4 and (k.shape[2] != q.shape[2] or v.shape[3] != q.shape[3]):
        # GQA/MQA or v's own head dim (or a mismatch, which the feature checks report)
        return _api.attention_with_features(q, k, v, causal, softmax_scale, return_lse, deterministic,
                                            window_size, softcap, learnable_sink)
    scale = _check_inputs(q, k, v, causal, softmax_scale)
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, deterministic, -1, -1, 0.0, None,
                                                    None, None, None, 0, 0,
                                                    _keep_residual(q, k, v, None, (-1, -1), causal, None, 0))
    return (out, lse) if return_lse else out


# The backward op (flashcore._backward) and the feature front end (flashcore.api) build on this
# module, so they are imported last. attention_bwd_into stays reachable from here.
from flashcore._backward import _kernel_layout, attention_bwd_into  # noqa: E402,F401
from flashcore import api as _api  # noqa: E402

if os.environ.get(FORCE_ARCH_ENV):
    _set_forced_arch(os.environ[FORCE_ARCH_ENV])
