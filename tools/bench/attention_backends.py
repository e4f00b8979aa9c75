"""Attention benchmark, backends: the inputs of a row, the timed callable of each backend, which
backend can run which row, the references and the error measure.

Backends, all on the same tensors:
  flashcore (flashcore_det: deterministic=True): flashcore.attention on (B, S, H, D) tensors with
      causal/window_size/softcap/learnable_sink and k/v of fewer heads (GQA); packed rows through
      flashcore.flash_attn_varlen_func on (total, H, D) tensors and cu_seqlens.
  flash, efficient, cudnn: torch SDPA backends, on q.transpose(1, 2) views of the same storage
      ((B, H, S, D) with unit stride in D: no copy), enable_gqa=True for GQA rows; they take no
      window, softcap, sink or packed batch, so they are left out of those rows (the reason is
      logged).
  fa4: FlashAttention-4 (flash_attn.cute.flash_attn_func / flash_attn_varlen_func, (B, S, H, D) /
      (total, H, D), GQA by fewer k/v heads, learnable_sink), used when importable (fa4_status()).

A row with a sink (gpt-oss) draws one float32 logit per query head; in the backward modes it is a
leaf like q, k and v (a learned parameter), so its gradient is part of every backend's work and of
the error measure.

Outputs are compared in the inputs' layout ((B, S, H, D), or (total, H, D) packed); gradients are
dq, dk, dv (and dsink) of the same leaves for every backend. References (--reference=sdpa, the default):
plain rows take the first torch SDPA backend that runs (flash, efficient, cudnn), else fp32 math;
rows with a feature (GQA, window, softcap, sink, packed) take fp32 math with the features
(fp32_reference), one sequence and a few heads at a time; --reference=fp32 takes fp32 math for
every row.
"""

import contextlib
import importlib
import warnings

from attention_config import SDPA_BACKENDS

MAX_ERROR_CHARS = 2000
PROFILE_CALLS = 5
DEVICE = "cuda"  # the unit test runs the GPU path on "cpu" with fakes and a fake timer
FA4_MODULE = "flash_attn.cute"
FA4_DISTRIBUTION = "flash-attn-4"
REF_CHUNK_ELEMENTS = 1 << 28  # fp32 score elements per reference step (1 GiB)


def _error_text(exc, caught_warnings=()):
    text = f"{type(exc).__name__}: {exc}"
    reasons = [str(w.message) for w in caught_warnings]
    if reasons:
        text += " | warnings: " + " | ".join(reasons)
    return text[:MAX_ERROR_CHARS]


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _torch_dtype(name):
    import torch
    return {"fp16": torch.float16, "bf16": torch.bfloat16}[name]


def _sdpa_enum(backend):
    from torch.nn.attention import SDPBackend
    return {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[backend]


def is_flashcore(backend):
    return backend in ("flashcore", "flashcore_det")


# --- FlashAttention-4 ------------------------------------------------------------------------

def fa4_status():
    """(module, description): FlashAttention-4's module and its version when importable, else
    (None, why not). Asked afresh each time (an import that failed is not cached by Python)."""
    try:
        mod = importlib.import_module(FA4_MODULE)
        mod.flash_attn_func  # noqa: B018 - the entry point the benchmark calls
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install raising anything
        return None, f"not importable ({_error_text(e)[:300]})"
    version = getattr(mod, "__version__", None)
    try:
        from importlib import metadata
        version = metadata.version(FA4_DISTRIBUTION)
    except Exception:  # noqa: BLE001 - a fake or vendored module has no distribution metadata
        pass
    return mod, f"{FA4_DISTRIBUTION} {version or '(version unknown)'}"


def _fa4_window(shape):
    left, right = shape.window_size()
    return (None if left < 0 else left, None if right < 0 else right)


# --- Which backend runs which row ------------------------------------------------------------

def unsupported_reason(backend, shape):
    """None when the backend can run the row, else why not (a sentence for the log)."""
    if backend in SDPA_BACKENDS:
        if shape.varlen:
            return "torch SDPA takes no packed variable-length batch (cu_seqlens)"
        if shape.window >= 0:
            return "torch SDPA's fused kernels take no sliding window (only an explicit mask)"
        if shape.softcap:
            return "torch SDPA has no softcap"
        if shape.sink:
            return "torch SDPA has no attention sink (learnable_sink)"
    return None


# --- Inputs ----------------------------------------------------------------------------------

class Inputs:
    """q, k, v (and dout in bwd modes) of one row. Dense: (batch, seqlen, heads, head_dim), k/v
    with kv_heads; packed: (total, heads, head_dim) with cu_seqlens (int32, batch + 1) and
    max_seqlen (a host int). sink: float32 (heads,) logits, or None."""

    def __init__(self, q, k, v, dout=None, cu_seqlens=None, max_seqlen=None, lengths=None, sink=None):
        self.q, self.k, self.v, self.dout = q, k, v, dout
        self.cu_seqlens, self.max_seqlen, self.lengths = cu_seqlens, max_seqlen, lengths
        self.sink = sink

    def leaves(self):
        """What the backward differentiates: q, k, v, and the sink when there is one."""
        return (self.q, self.k, self.v) + ((self.sink,) if self.sink is not None else ())


def make_inputs(shape, seed, mode="fwd"):
    """Fresh N(0, 1) q, k, v, contiguous; in bwd modes they require grad and dout is drawn too."""
    import torch

    from attention_config import varlen_lengths
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    dtype = _torch_dtype(shape.dtype)
    lengths = varlen_lengths(shape)
    if shape.varlen:
        lead = (sum(lengths),)
    else:
        lead = (shape.batch, shape.seqlen)

    def randn(heads):
        return torch.randn(lead + (heads, shape.head_dim), device=DEVICE, dtype=dtype, generator=gen)
    q, k, v = randn(shape.heads), randn(shape.kv_heads), randn(shape.kv_heads)
    sink = torch.randn(shape.heads, device=DEVICE, dtype=torch.float32, generator=gen) if shape.sink else None
    dout = None
    if mode != "fwd":
        dout = randn(shape.heads)
        for t in (q, k, v, sink):
            if t is not None:
                t.requires_grad_(True)
    cu = None
    if shape.varlen:
        prefix = [0]
        for n in lengths:
            prefix.append(prefix[-1] + n)
        cu = torch.tensor(prefix, dtype=torch.int32, device=DEVICE)
    return Inputs(q, k, v, dout, cu, max(lengths), lengths, sink)


# --- The timed callables ---------------------------------------------------------------------

def _forward_fn(backend, inp, shape, raw=False):
    """A callable returning the output in the inputs' layout (SDPA: a transposed view, or with
    raw=True SDPA's own (B, H, S, D) output)."""
    q, k, v = inp.q, inp.k, inp.v
    causal = shape.causal
    feat = {}
    if shape.window >= 0:
        feat["window_size"] = shape.window_size()
    if shape.softcap:
        feat["softcap"] = shape.softcap
    if inp.sink is not None:
        feat["learnable_sink"] = inp.sink
    if is_flashcore(backend):
        import flashcore
        det = backend == "flashcore_det"
        if shape.varlen:
            cu, m = inp.cu_seqlens, inp.max_seqlen
            return lambda: flashcore.flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=causal,
                                                            deterministic=det, **feat)
        return lambda: flashcore.attention(q, k, v, causal=causal, deterministic=det, **feat)
    if backend == "fa4":
        mod, why = fa4_status()
        if mod is None:
            raise ImportError(f"fa4: {why}")
        kw = {"causal": causal, "softcap": float(shape.softcap)}
        if shape.window >= 0:
            kw["window_size"] = _fa4_window(shape)
        if inp.sink is not None:
            kw["learnable_sink"] = inp.sink
        if shape.varlen:
            cu, m = inp.cu_seqlens, inp.max_seqlen
            return lambda: mod.flash_attn_varlen_func(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                                      max_seqlen_q=m, max_seqlen_k=m, **kw)[0]
        return lambda: mod.flash_attn_func(q, k, v, **kw)[0]
    why = unsupported_reason(backend, shape)
    if why:
        raise NotImplementedError(why)
    import torch.nn.functional as F
    gqa = {"enable_gqa": True} if shape.kv_heads != shape.heads else {}
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    if raw:  # the timed forward: (B, H, S, D) as SDPA returns it; canonical() transposes it
        return lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, **gqa)
    return lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, **gqa).transpose(1, 2)


def canonical(out, backend):
    """A timed forward's output in the inputs' layout (SDPA's fwd callable returns (B, H, S, D):
    a transposed view); gradient tuples pass as they are."""
    if isinstance(out, tuple) or backend not in SDPA_BACKENDS:
        return out
    return out.transpose(1, 2)


def make_fn(backend, inp, shape, mode="fwd"):
    """The timed callable. Everything it needs (views, flags) is made here, outside the timing.
    fwd: the forward; bwd: the forward runs once here (under the backend) and the callable returns
    torch.autograd.grad(out, (q, k, v), dout) on the retained graph; fwd_bwd: both, per call."""
    if mode == "fwd":
        return _forward_fn(backend, inp, shape, raw=True)
    forward = _forward_fn(backend, inp, shape)
    import torch
    leaves = inp.leaves()
    if mode == "fwd_bwd":
        return lambda: torch.autograd.grad(forward(), leaves, inp.dout)
    with backend_context(backend):
        out = forward()
    return lambda: torch.autograd.grad(out, leaves, inp.dout, retain_graph=True)


def backend_context(backend):
    """Forces one SDPA backend for the calls made inside; a no-op for the others."""
    if backend not in SDPA_BACKENDS:
        return contextlib.nullcontext()
    from torch.nn.attention import sdpa_kernel
    return sdpa_kernel(_sdpa_enum(backend))


def call_once(backend, fn):
    """Runs fn once under its backend; returns (out, None) or (None, error text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with backend_context(backend):
                out = fn()
            _sync()
            return out, None
        except Exception as e:  # noqa: BLE001 - an unsupported backend is a result, not a crash
            return None, _error_text(e, caught)


# --- References ------------------------------------------------------------------------------

def _sequences(inp, shape):
    """(slice of the leading dims) per sequence: a batch index, or a row range when packed."""
    if shape.varlen:
        out, start = [], 0
        for n in inp.lengths:
            out.append(slice(start, start + n))
            start += n
        return out
    return list(range(shape.batch))


def _head_chunks(sq, sk, heads):
    """Query-head ranges of about REF_CHUNK_ELEMENTS fp32 scores each."""
    step = max(1, REF_CHUNK_ELEMENTS // max(1, sq * sk))
    return [(h0, min(heads, h0 + step)) for h0 in range(0, heads, step)]


def _attend_fp32(qs, ks, vs, shape, scale, h0, h1, sink=None):
    """fp32 attention of one sequence's query heads h0..h1-1: qs (Sq, H, D), ks/vs (Sk, Hk, D) ->
    (Sq, h1 - h0, D); query head h reads kv head h // (H / Hk). sink: (H,) logits that join every
    row's softmax denominator (a key with a zero value), or None."""
    import torch
    sq, heads, _ = qs.shape
    sk, hk = ks.shape[0], ks.shape[1]
    group = heads // hk
    left, right = shape.window_size()
    i = torch.arange(sq, device=qs.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=qs.device)[None, :]
    keep = torch.ones(sq, sk, dtype=torch.bool, device=qs.device)
    if left >= 0:
        keep &= j >= i - left
    if right >= 0:
        keep &= j <= i + right
    idx = torch.arange(h0, h1, device=qs.device)
    qh = qs.index_select(1, idx).transpose(0, 1).float()
    kh = ks.index_select(1, idx // group).transpose(0, 1).float()
    vh = vs.index_select(1, idx // group).transpose(0, 1).float()
    s = torch.matmul(qh, kh.transpose(1, 2)) * scale
    if shape.softcap:
        s = shape.softcap * torch.tanh(s / shape.softcap)
    s = s.masked_fill(~keep, float("-inf"))
    if sink is not None:
        column = sink[h0:h1].float()[:, None, None].expand(s.shape[0], sq, 1)
        p = torch.softmax(torch.cat([s, column], dim=-1), dim=-1)[..., :sk]
    else:
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # a row that sees no key: 0
    return torch.matmul(p, vh).transpose(0, 1)


def fp32_reference(inp, shape, dout=None):
    """fp32 math with the row's features, one sequence and a few query heads at a time: the
    output (float32, the inputs' layout), or with dout the gradients dq, dk, dv (float32, the
    leaves' layouts, dsink last with a sink; each head chunk's backward runs before the next
    chunk's forward, so memory stays at one chunk's scores)."""
    import torch
    q, k, v = (t.detach() for t in (inp.q, inp.k, inp.v))
    sink = inp.sink.detach() if inp.sink is not None else None
    scale = shape.head_dim ** -0.5
    heads = q.shape[-2]
    if dout is None:
        out = torch.empty(q.shape, dtype=torch.float32, device=q.device)
        with torch.no_grad():
            for sl in _sequences(inp, shape):
                qs, ks, vs = q[sl], k[sl], v[sl]
                for h0, h1 in _head_chunks(qs.shape[0], ks.shape[0], heads):
                    out[sl][:, h0:h1] = _attend_fp32(qs, ks, vs, shape, scale, h0, h1, sink)
        return out
    grads = [torch.zeros(t.shape, dtype=torch.float32, device=t.device) for t in (q, k, v)]
    dsink = torch.zeros(sink.shape, dtype=torch.float32, device=sink.device) if sink is not None else None
    with torch.enable_grad():
        sink_f = sink.float().requires_grad_(True) if sink is not None else None
        for sl in _sequences(inp, shape):
            qs, ks, vs = (t[sl].float().requires_grad_(True) for t in (q, k, v))
            ds = dout[sl].float()
            for h0, h1 in _head_chunks(qs.shape[0], ks.shape[0], heads):
                o = _attend_fp32(qs, ks, vs, shape, scale, h0, h1, sink_f)
                wrt = (qs, ks, vs) + ((sink_f,) if sink_f is not None else ())
                gs = torch.autograd.grad(o, wrt, ds[:, h0:h1])
                for dst, g in zip(grads, gs[:3]):
                    dst[sl] += g
                if sink_f is not None:
                    dsink += gs[3]
                del o, gs
    return tuple(grads) + ((dsink,) if dsink is not None else ())


def compute_reference(inp, shape, mode="fwd", reference="sdpa"):
    """The reference output (bwd modes: gradients dq, dk, dv). reference "sdpa": for a plain row
    the first of the torch SDPA backends flash, efficient, cudnn that runs, for a row with a
    feature (or when none runs) fp32 math; "fp32": fp32 math for every row. Returns (out, backend
    name, errors of the backends that raised)."""
    errors = {}
    if reference == "sdpa" and not shape.features():
        for backend in SDPA_BACKENDS:
            try:
                with backend_context(backend):
                    fn = make_fn(backend, inp, shape, mode)
            except Exception as e:  # noqa: BLE001 - bwd mode runs the forward in make_fn
                errors[backend] = _error_text(e)
                continue
            out, err = call_once(backend, fn)
            if err is None:
                return canonical(out, backend), backend, errors
            errors[backend] = err
    return fp32_reference(inp, shape, inp.dout if mode != "fwd" else None), "math_fp32", errors


def max_abs_err(out, ref):
    """Max abs error; for gradient tuples, the max over dq, dk, dv of max abs error divided by the
    largest reference magnitude of that gradient."""
    if isinstance(out, tuple):
        if len(out) != len(ref):
            raise ValueError(f"{len(out)} gradients != reference's {len(ref)}")
        errs = []
        for o, r in zip(out, ref):
            scale = max(r.float().abs().max().item(), 1e-30)
            errs.append(max_abs_err(o, r) / scale)
        return max(errs)
    if tuple(out.shape) != tuple(ref.shape):
        raise ValueError(f"output shape {tuple(out.shape)} != reference {tuple(ref.shape)}")
    return (out.float() - ref.float()).abs().max().item()


def profile_kernels(backend, fn, calls=PROFILE_CALLS):
    """Runs fn `calls` times under torch.profiler. Returns (names of the CUDA kernels, memsets and
    memcpys it launches, their summed GPU duration per call in ms, {name: GPU microseconds per
    call}). The durations exclude launch overhead and L2 flushing, so they are a cross-check of
    do_bench for small shapes and a breakdown of a call by kernel (e.g. a backward's preprocess,
    main and convert kernels beside another backend's), not a result."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Profiler clears events at the end of each cycle"
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with backend_context(backend):
                for _ in range(calls):
                    fn()
            torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    per_kernel = {}
    for e in events:
        per_kernel[e.name] = per_kernel.get(e.name, 0.0) + e.time_range.elapsed_us() / calls
    return sorted(per_kernel), sum(per_kernel.values()) / 1e3, per_kernel
