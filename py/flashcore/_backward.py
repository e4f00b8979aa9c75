"""The backward custom op of flashcore.attention (flashcore::attention_bwd): the kernels' launch
with its scratch, the sink's gradient, and the refusal of double backward. The forward op and its
autograd registration are in flashcore._attention, whose helpers (features, arch, the extension)
this module reaches through the module, so test-time patches of them apply here too."""

from __future__ import annotations

from typing import Optional

import torch

from flashcore import _attention as _core
from flashcore import _checks


def _kernel_layout(t: torch.Tensor) -> torch.Tensor:
    """t itself if the kernels can read it (unit stride on head_dim, 16-byte rows and start),
    else a contiguous copy (e.g. the stride-0 gradient that .sum().backward() produces)."""
    if t.stride(-1) == 1 and not any(s % 8 for s in t.stride()[:3]) and t.data_ptr() % 16 == 0:
        return t
    return t.contiguous()


def attention_bwd_into(dout, q, k, v, out, lse, dq, dk, dv, causal: bool, softmax_scale: float,
                       deterministic: bool = False, dlse=None, out_resid=None, zero_packed_tails: bool = False,
                       **features):
    """Runs the backward kernels writing dq, dk, dv (caller-provided, shapes/dtypes of q, k, v,
    unit stride on head_dim, 16-byte rows; out and dout have q's rows and v's head dim; their other
    strides are free, so a test may pass views of wider buffers). Scratch (O(batch*heads*seqlen_q*kernel head dim) float32) is allocated here
    through torch. The tests use this to poison the outputs. `features`: the
    keywords of _attention._PLAIN. zero_packed_tails (packed batches): the kernels also write zeros
    to dq's rows past cu_seqlens_q[-1] and dk / dv's past cu_seqlens_k[-1] (else no kernel writes
    them). Returns (dsum, dsink): D = rowsum(dO * O) - dlse in lse's
    layout, and with a sink (features["sink"]) its gradient (heads,) float32, else None. out_resid
    (optional): the forward's O residual (_attention_fwd's save_residual), with out's strides."""
    f = _core._Features(q, k, causal, **{**_core._PLAIN, **features})
    if out_resid is not None and (out_resid.shape != out.shape or out_resid.stride() != out.stride()
                                  or out_resid.dtype != out.dtype or out_resid.device != out.device):
        raise ValueError("flashcore: out_resid must have out's shape, strides, dtype and device")
    heads, head_dim, head_dim_v = q.shape[-2], q.shape[-1], v.shape[-1]
    out_shape = _core._out_shape(q, v)  # o and dO: q's rows, v's head dim
    for name, t, like, shape in (("dout", dout, "out", out_shape), ("out", out, "out", out_shape),
                                 ("dq", dq, "q", q.shape), ("dk", dk, "k", k.shape), ("dv", dv, "v", v.shape)):
        if t.shape != shape or t.dtype != q.dtype or t.device != q.device or t.stride(-1) != 1 \
                or any(s % 8 for s in t.stride()[:-1]) or t.data_ptr() % 16:
            raise ValueError("flashcore: %s must have %s's shape %s, q's dtype and device, unit head_dim stride, "
                             "16-byte rows and a 16-byte aligned start" % (name, like, tuple(shape)))
    lse_shape = f.lse_shape(heads)
    for name, t in (("lse", lse), ("dlse", dlse)):
        if t is None and name == "dlse":
            continue
        if tuple(t.shape) != lse_shape or t.dtype != torch.float32 or t.device != q.device or not t.is_contiguous():
            raise ValueError("flashcore: %s must be a contiguous float32 tensor of shape %s" % (name, lse_shape))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.data_ptr() % 16:
            raise ValueError("flashcore.attention: %s's data is not 16-byte aligned; pass %s.clone()" % (name, name))
    device = _core._device_index(q)
    # Packed: rows past cu_seqlens_q[-1] belong to no sequence and the preprocess skips them; zeros
    # there keep callers that read dsum from uninitialised memory.
    dsum = (torch.zeros if f.varlen else torch.empty)(lse_shape, dtype=torch.float32, device=q.device)
    # The sink's gradient -sum_i p_sink,i D_i, with D_i = sum_j P_ij dP_ij from the main kernels' fp32
    # P and dP: their warps' shares per (key block, batch entry, query head), summed here in a fixed
    # order (kernels/flash_bwd_api.h sink_partial). D from dO . O (the rounded O, whose P.V took P in
    # the input dtype) left the gradient up to 7x the error of the same math in bf16 on some inputs
    # (docs/results/2026-11-24-h100-bwd-rows-persistent.md).
    sink = features.get("sink")
    sink_partial = None
    if sink is not None:
        key_blocks = -(-f.seqlen_k // _core._C.sink_partial_keys)
        sink_partial = torch.zeros((key_blocks, f.batch, heads, _core._C.sink_partial_slots), dtype=torch.float32,
                                   device=q.device)
    arch, dtype_name = _core._arch_for(device), _core._DTYPE_NAMES[q.dtype]
    # dq_accum's rows are as wide as the instantiation the call runs on, rounded up to 64 columns
    # (kernels/flash_bwd_api.h dq_accum_cols), which may exceed head_dim; 0 (no kernel): _C.bwd
    # raises the precise error below.
    widest = max(head_dim, head_dim_v)  # the instantiation of the wider of q's and v's head dims
    # Flat: rows of lse's layout, or the sm90a 64 kernel's fragment-order slabs where larger (_C.dq_accum_floats).
    kernel_head_dim = _core._C.kernel_head_dim(arch, dtype_name, widest, f.masked, True) or widest
    n_accum = _core._C.dq_accum_floats(kernel_head_dim, f.varlen, f.total_q, f.seqlen_q, heads, f.batch)
    dq_accum = torch.empty((n_accum,), dtype=torch.float32, device=q.device)
    if deterministic:
        n_sem = f.batch * heads * -(-f.seqlen_q // _core._C.bwd_block_m)
        # Dense: the preprocess kernel zeroes them; a packed row does not know its sequence.
        semaphore = (torch.zeros if f.varlen else torch.empty)((n_sem,), dtype=torch.int32, device=q.device)
        sem_ptr = semaphore.data_ptr()
    else:
        n_sem, sem_ptr = 0, 0
    # Positional, in _C.bwd's order. The library the forward ran too (FLASHCORE_FORCE_ARCH included).
    _core._C.bwd(device, arch, dtype_name,
                 q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), dout.data_ptr(), lse.data_ptr(),
                 0 if dlse is None else dlse.data_ptr(),
                 dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), dsum.data_ptr(), dq_accum.data_ptr(), sem_ptr, n_sem,
                 f.batch, heads, f.seqlen_q, f.seqlen_k, head_dim,
                 f.strides(q), f.strides(k), f.strides(v), f.strides(out), f.strides(dout),
                 f.strides(dq), f.strides(dk), f.strides(dv),
                 softmax_scale, f.masked, deterministic, torch.cuda.current_stream(device).cuda_stream, f.as_tuple,
                 0 if out_resid is None else out_resid.data_ptr(), head_dim_v,
                 0 if sink_partial is None else sink_partial.data_ptr(), bool(zero_packed_tails))
    if sink_partial is None:
        return dsum, None
    return dsum, _sink_grad(sink_partial, sink, lse, dlse, features.get("cu_seqlens_q"))


def _sink_grad(sink_partial, sink, lse, dlse, cu_seqlens_q):
    """d loss / d sink_h = -sum_i p_sink,i (D_i - dlse_i), p_sink = exp(sink_h - lse) the
    probability the sink took: the kernels' shares of sum_i p_sink,i D_i summed over key blocks,
    batch entries and warps (a fixed order), and the dlse term here. Packed rows past
    cu_seqlens_q[-1] belong to no sequence: masked on the device (no host read, so CUDA graphs keep
    working)."""
    dsink = -sink_partial.sum((0, 1, 3))
    if dlse is None:
        return dsink
    if cu_seqlens_q is not None:  # lse, dlse: (heads, total_q)
        p_sink = torch.exp(sink[:, None] - lse)
        valid = torch.arange(lse.shape[1], device=lse.device) < cu_seqlens_q[-1]
        return dsink + (p_sink * dlse).masked_fill(~valid, 0.0).sum(1)
    return dsink + (torch.exp(sink[None, :, None] - lse) * dlse).sum((0, 2))


def _gradient_buffers(q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_k, max_seqlen_q, max_seqlen_k):
    """(dq, dk, dv, zero_packed_tails): the gradients for the kernels to write, and whether the
    kernels are to zero the packed tails. The kernels write every row a sequence owns (rows that
    see no key get zeros, keys no query sees too); the rows they leave alone get zeros, not
    garbage: packed rows past cu_seqlens[-1] and keys past seqused_k.
    - Packed, no seqused_k: where the front end's value check has read cu_seqlens on the host
      (eager, cached per tensors: _checks.packed_ends) the rows past the ends are zeroed here;
      elsewhere (graph capture, torch.compile: a replay may run with other lengths written into the
      same cu_seqlens) the kernels zero them (BwdParams::zero_packed_tails). Zeroing the three
      whole tensors instead was 3 gradient-sized writes a call: 4.4% of a captured packed backward
      of 64 x 100..4000 tokens, d64 H32 causal (H200, docs/results/2026-11-30-h200-session50.md).
    - seqused_k: the keys past it are inside the sequences; whole tensors are zeroed."""
    ends = None
    if cu_seqlens_q is not None and seqused_k is None and _checks.device_reads_allowed(q, cu_seqlens_q):
        ends = _checks.packed_ends(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, seqused_k)
    if seqused_k is not None:
        return tuple(torch.zeros(t.shape, dtype=t.dtype, device=t.device) for t in (q, k, v)) + (False,)
    dq, dk, dv = (_core._new_output(t.shape, t.dtype, t.device) for t in (q, k, v))
    if ends is not None:
        end_q, end_k = ends
        dq[end_q:].zero_()
        dk[end_k:].zero_()
        dv[end_k:].zero_()
    return dq, dk, dv, cu_seqlens_q is not None and ends is None


@torch.library.custom_op("flashcore::attention_bwd", mutates_args=())
def _attention_bwd(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   out: torch.Tensor, lse: torch.Tensor, dlse: Optional[torch.Tensor], causal: bool,
                   softmax_scale: float, deterministic: bool, window_left: int = -1, window_right: int = -1,
                   softcap: float = 0.0, sink: Optional[torch.Tensor] = None,
                   cu_seqlens_q: Optional[torch.Tensor] = None, cu_seqlens_k: Optional[torch.Tensor] = None,
                   seqused_k: Optional[torch.Tensor] = None, max_seqlen_q: int = 0, max_seqlen_k: int = 0,
                   out_resid: Optional[torch.Tensor] = None
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    dq, dk, dv, zero_tails = _gradient_buffers(q, k, v, cu_seqlens_q, cu_seqlens_k, seqused_k, max_seqlen_q,
                                               max_seqlen_k)
    _, dsink = attention_bwd_into(_kernel_layout(dout), q, k, v, out, lse, dq, dk, dv, causal, softmax_scale,
                                  deterministic, None if dlse is None else dlse.contiguous(),
                                  zero_packed_tails=zero_tails,
                                  window_left=window_left, window_right=window_right, softcap=softcap, sink=sink,
                                  cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k, seqused_k=seqused_k,
                                  max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, out_resid=out_resid)
    if dsink is None:
        dsink = q.new_empty((0,), dtype=torch.float32)
    return dq, dk, dv, dsink


@_attention_bwd.register_fake
def _attention_bwd_fake(dout, q, k, v, out, lse, dlse, causal, softmax_scale, deterministic, window_left=-1,
                        window_right=-1, softcap=0.0, sink=None, cu_seqlens_q=None, cu_seqlens_k=None,
                        seqused_k=None, max_seqlen_q=0, max_seqlen_k=0, out_resid=None):
    dsink = q.new_empty(sink.shape if sink is not None else (0,), dtype=torch.float32)
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape), dsink


def _setup_context_bwd(ctx, inputs, output):
    pass


def _double_backward(ctx, *grads):
    raise RuntimeError(
        "flashcore.attention does not support double backward (gradients of its gradients, e.g. "
        "torch.autograd.grad(..., create_graph=True) followed by another backward); use "
        "torch.nn.functional.scaled_dot_product_attention with the math backend for that")


torch.library.register_autograd("flashcore::attention_bwd", _double_backward, setup_context=_setup_context_bwd)
