"""flashcore.attention: input checks, device/arch selection, and the torch.library custom op."""

from __future__ import annotations

import functools
import json
import math
import os

import torch

try:
    from flashcore import _C
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "flashcore: cannot import the compiled extension flashcore._C (%s). It is built by "
        "`tools/bazel build //py/flashcore:_C.so`; for the GPU machines' Python 3.12 use "
        "--config=gpu_target (docs/GPU.md)." % e
    ) from e

SUPPORTED_HEAD_DIMS = (64, 128)
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}
_GRID_LIMIT = 65535  # batch and heads map to grid.z and grid.y


def build_info() -> dict:
    """What this build holds. From the extension: kernels (arch, dtype, head_dim, causal), CUDA
    runtime and nvcc versions, host compiler. From an installed wheel (flashcore/_build_info.json,
    the facts its provenance record lists): name, version, exact source revision, wheel tag,
    Bazel and its packages, every toolchain archive's sha256, host compiler version, compile
    flags per kernel library. "from_wheel" says which of the two this is."""
    info = dict(_C.build_info())
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build_info.json")
    info["from_wheel"] = os.path.exists(path)
    if info["from_wheel"]:
        with open(path, encoding="utf-8") as f:
            info.update(json.load(f))
    return info


@functools.cache
def _compiled_archs() -> frozenset:
    return frozenset(k["arch"] for k in _C.build_info()["kernels"])


@functools.cache
def _device_arch(device_index: int) -> str:
    """Per-device library choice, computed once (this is on every call's path)."""
    return select_arch(torch.cuda.get_device_capability(device_index))


def select_arch(capability, compiled_archs=None) -> str:
    """Kernel library for a device of compute capability (major, minor).

    sm_90a code runs only on 9.0; sm_89 on 8.9; sm_80 SASS on every 8.x (same major, minor >= 0),
    used for 8.0/8.6/8.7. Anything else is not covered by this build.
    """
    major, minor = capability
    compiled = _compiled_archs() if compiled_archs is None else set(compiled_archs)
    if (major, minor) == (9, 0):
        arch = "sm90a"
    elif (major, minor) == (8, 9):
        arch = "sm89"
    elif major == 8:
        arch = "sm80"
    else:
        arch = None
    if arch is None or arch not in compiled:
        raise RuntimeError(
            "flashcore: this build has no kernels for a GPU of compute capability %d.%d "
            "(compiled archs: %s; supported GPUs: Ampere sm80/86/87, Ada sm89, Hopper sm90)"
            % (major, minor, ", ".join(sorted(compiled)) or "none")
        )
    return arch


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
        raise ValueError("flashcore.attention: head_dim must be one of %s, got %d"
                         % (SUPPORTED_HEAD_DIMS, head_dim))
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


def _launch(q, k, v, out, lse, causal: bool, softmax_scale: float) -> None:
    """The per-call path: pointer alignment, device, arch, and the kernel launch. Shapes and
    layouts of out/lse are the caller's responsibility (attention_into checks them; the custom
    op allocates them itself)."""
    batch, seqlen_q, heads, head_dim = q.shape
    seqlen_k = k.shape[1]
    for name, t in (("q", q), ("k", k), ("v", v), ("out", out)):
        if t.data_ptr() % 16:
            raise ValueError("flashcore.attention: %s's data is not 16-byte aligned; pass %s.clone()" % (name, name))
    device = q.device.index if q.device.index is not None else torch.cuda.current_device()
    # Positional (pybind11 keyword matching costs microseconds per call); order as in _C.fwd.
    _C.fwd(device, _device_arch(device), _DTYPE_NAMES[q.dtype],
           q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr(),
           batch, heads, seqlen_q, seqlen_k, head_dim,
           q.stride()[:3], k.stride()[:3], v.stride()[:3], out.stride()[:3],
           softmax_scale, causal, torch.cuda.current_stream(device).cuda_stream)


@torch.library.custom_op("flashcore::attention_fwd", mutates_args=())
def _attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                   softmax_scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    batch, seqlen_q, heads, head_dim = q.shape
    out = torch.empty((batch, seqlen_q, heads, head_dim), dtype=q.dtype, device=q.device)
    lse = torch.empty((batch, heads, seqlen_q), dtype=torch.float32, device=q.device)
    _launch(q, k, v, out, lse, causal, softmax_scale)
    return out, lse


@_attention_fwd.register_fake
def _attention_fwd_fake(q, k, v, causal, softmax_scale):
    batch, seqlen_q, heads, head_dim = q.shape
    return (q.new_empty((batch, seqlen_q, heads, head_dim)),
            q.new_empty((batch, heads, seqlen_q), dtype=torch.float32))


def _setup_context(ctx, inputs, output):
    pass


def _backward(ctx, grad_out, grad_lse):
    raise NotImplementedError(
        "flashcore.attention has no backward pass yet (forward only); use "
        "torch.nn.functional.scaled_dot_product_attention for training until the backward issue lands"
    )


torch.library.register_autograd("flashcore::attention_fwd", _backward, setup_context=_setup_context)


def attention(q, k, v, *, causal=False, softmax_scale=None, return_lse=False):
    """FlashAttention forward.

    q: (batch, seqlen_q, heads, head_dim); k, v: (batch, seqlen_k, heads, head_dim); CUDA,
    float16 or bfloat16, head_dim 64 or 128, unit stride on head_dim. causal masks are aligned
    bottom-right. softmax_scale defaults to 1/sqrt(head_dim). Returns out (batch, seqlen_q, heads,
    head_dim) in the input dtype, and with return_lse=True also the natural-log log-sum-exp
    (batch, heads, seqlen_q) in float32 (-inf for a query row that sees no key; its out is 0).
    """
    scale = _check_inputs(q, k, v, causal, softmax_scale)
    out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale)
    return (out, lse) if return_lse else out
