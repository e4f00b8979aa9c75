"""GPU correctness suite for flashcore's backward pass (instantiated per GPU kind by tests/gpu.bzl).

Oracle (tests/bwd_oracle.py, whose docstring explains the error measure and its floors): float64
gradients on fresh random inputs and a random dO; flashcore's relative error in each of dQ, dK, dV
must be at most 2x that of torch's math SDPA gradients computed in the same dtype on the same
inputs. Gradients are poisoned (NaN) before every run and every element must be written; NaN never
passes.
"""

import os
import re
import sys
import textwrap

import pytest
import torch
import torch.nn.functional as F

import flashcore
from flashcore import _attention
from flashcore import _backward
from flashcore.reference import attention_reference_grads
from bwd_oracle import (DTYPES, ERRORS, SHAPES, UNIT_ROUNDOFF, cancelling_term_norms, check_grads, fresh,
                        print_error_summary, record_error, rel_err, run_bwd_poisoned, torch_math_grads)
from sanitizer_check import run_sanitizer
from gpu_suite_env import check_expected_gpu


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 96, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_grads_match_float64_reference(shape, causal, head_dim, dtype):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, dtype, seed)
    errs = check_grads(q, k, v, dout, causal)
    record_error(dict(dtype=str(dtype), head_dim=head_dim, causal=causal, shape=shape, seed=seed, **errs))


# Deterministic mode has its own dQ reduction (semaphore-ordered, key blocks in ascending order,
# or descending when causal): the same oracle over the same shapes, one dtype.
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 96, 128])
def test_deterministic_grads_match_float64_reference(shape, causal, head_dim):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, torch.float16, seed)
    check_grads(q, k, v, dout, causal, deterministic=True)


# Head dims between the instantiations (issue 15): every multiple of 8 up to 256 runs on the 64,
# 128 or 256 kernels with zero-filled loads and predicated stores (dq_accum rows stay the kernel's
# width); 192 and 256 themselves are here too (256: the head-dim-split backward). The same oracle
# over S=1, odd S, tile non-multiples, seqlen_q != seqlen_k both ways.
ODD_HEAD_DIMS = [8, 40, 72, 80, 96, 120, 136, 192, 200, 256]
ODD_SHAPES = [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 129, 129), (1, 2, 17, 300), (1, 2, 300, 17), (1, 1, 1000, 1),
              (1, 4, 255, 511), (4, 16, 512, 512)]


@pytest.mark.parametrize("shape", ODD_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_odd_head_dim_grads_match_float64_reference(shape, causal, head_dim, dtype):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, dtype, seed)
    errs = check_grads(q, k, v, dout, causal)
    record_error(dict(dtype=str(dtype), head_dim=head_dim, causal=causal, shape=shape, seed=seed, **errs))


@pytest.mark.parametrize("shape", [(2, 3, 17, 17), (1, 2, 300, 17), (1, 4, 255, 511)], ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
def test_odd_head_dim_deterministic_grads_match_and_repeat(shape, causal, head_dim):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, torch.float16, seed)
    check_grads(q, k, v, dout, causal, deterministic=True)
    runs = [run_bwd_poisoned(dout, q, k, v, causal, head_dim ** -0.5, deterministic=True) for _ in range(2)]
    assert all(torch.equal(a, b) for a, b in zip(*runs))


def gapped(x, fill=float("nan"), gap=8):
    """x's values in a view of a buffer `gap` columns wider, the gap holding `fill` (strides stay
    multiples of 8 elements, so the kernels take the view as it is). Returns (view, buffer)."""
    buf = torch.full(x.shape[:-1] + (x.shape[-1] + gap,), fill, dtype=x.dtype, device=x.device)
    view = buf[..., :x.shape[-1]]
    view.copy_(x)
    return view, buf


def check_columns_past_head_dim(q, k, v, dout, causal, deterministic):
    """q, k, v, dO, O and the O residual with NaN in the 8 columns past head_dim of every row (the
    backward reads none of them, else NaN reaches a gradient), dq, dk, dv as views of NaN buffers
    8 columns wider (it writes none, else the gap loses its NaN); then the oracle."""
    d = q.shape[-1]
    scale = d ** -0.5
    (qg, _), (kg, _), (vg, _), (doutg, _) = (gapped(t) for t in (q, k, v, dout))
    out, lse, resid = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False, -1, -1, 0.0, None, None,
                                                        None, None, 0, 0, True)
    (outg, _), (residg, _) = gapped(out), gapped(resid)
    grads = [gapped(torch.zeros_like(t)) for t in (q, k, v)]
    for g, _ in grads:
        g.fill_(float("nan"))
    _attention.attention_bwd_into(doutg, qg, kg, vg, outg, lse, *(g for g, _ in grads), causal, scale, deterministic,
                                  out_resid=residg)
    torch.cuda.synchronize()
    ref = attention_reference_grads(q, k, v, dout, causal=causal, softmax_scale=scale)
    theirs = torch_math_grads(q, k, v, dout, causal, scale)
    cancelling = cancelling_term_norms(q, k, v, dout, causal, scale)
    for name, (g, buf), r, t, c in zip(("dq", "dk", "dv"), grads, ref, theirs, cancelling):
        assert torch.isnan(buf[..., d:]).all(), "%s: a column past head_dim was written" % name
        assert torch.isfinite(g).all(), "%s: NaN (a column past head_dim of an input was read) or unwritten" % name
        assert rel_err(g, r, c) <= 2 * max(rel_err(t, r, c), UNIT_ROUNDOFF[q.dtype]), name


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic", "deterministic"])
@pytest.mark.parametrize("ptx", [False, True], ids=["native", "sm80_ptx"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS + [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_columns_past_head_dim_are_neither_read_nor_written(deterministic, ptx, causal, head_dim, dtype):
    if ptx:
        _attention._set_forced_arch("sm80_ptx")
    try:
        for i, (b, h, sq, sk) in enumerate([(2, 3, 67, 131), (1, 2, 131, 67), (1, 2, 1, 77)]):
            q, k, v, dout = fresh(b, h, sq, sk, head_dim, dtype, 100 * head_dim + i)
            check_columns_past_head_dim(q, k, v, dout, causal, deterministic)
    finally:
        _attention._set_forced_arch(None)


@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
def test_odd_head_dim_autograd_default_scale(head_dim):
    """The public API end to end: default scale 1/sqrt(head_dim), gradients of the head dim's
    shape, equal to the kernels' own run (deterministic dQ, so bitwise)."""
    q, k, v, dout = fresh(2, 4, 133, 200, head_dim, torch.bfloat16, head_dim)
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    out = flashcore.attention(*leaves, causal=True, deterministic=True)
    out.backward(dout)
    want = run_bwd_poisoned(dout, q, k, v, True, head_dim ** -0.5, deterministic=True)
    for leaf, w in zip(leaves, want):
        assert leaf.grad.shape == leaf.shape and torch.equal(leaf.grad, w)


# The portable library (compute_80 PTX, JIT-compiled by the driver; what select_arch picks on GPUs
# newer than Hopper), forced on this GPU: forward and backward both run it (the forced arch
# applies to the backward too). The same oracle over most of the shape list, both dQ modes.
PTX_ARCH = "sm80_ptx"
PTX_SHAPES = [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 129, 129), (2, 2, 1000, 1000), (1, 2, 17, 300),
              (1, 2, 300, 17), (1, 1, 1000, 1), (1, 4, 255, 511), (8, 32, 512, 512)]


@pytest.fixture
def forced_ptx():
    _attention._set_forced_arch(PTX_ARCH)
    try:
        yield PTX_ARCH
    finally:
        _attention._set_forced_arch(None)


@pytest.mark.parametrize("shape", PTX_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_grads_match_float64_reference(forced_ptx, shape, causal, head_dim, dtype):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, dtype, seed)
    errs = check_grads(q, k, v, dout, causal)
    record_error(dict(dtype="%s %s" % (forced_ptx, dtype), head_dim=head_dim, causal=causal, shape=shape,
                      seed=seed, **errs))


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 300, 17), (1, 1, 1000, 1), (1, 4, 255, 511)],
                         ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_odd_head_dim_grads_match_float64_reference(forced_ptx, shape, causal, head_dim, dtype):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, dtype, seed)
    errs = check_grads(q, k, v, dout, causal, deterministic=head_dim % 16 == 8)
    record_error(dict(dtype="%s %s" % (forced_ptx, dtype), head_dim=head_dim, causal=causal, shape=shape,
                      seed=seed, **errs))


@pytest.mark.parametrize("shape", [(2, 3, 17, 17), (1, 2, 300, 17), (1, 4, 255, 511)], ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_ptx_deterministic_grads_match_float64_reference(forced_ptx, shape, causal, head_dim):
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v, dout = fresh(batch, heads, sq, sk, head_dim, torch.bfloat16, seed)
    check_grads(q, k, v, dout, causal, deterministic=True)
    runs = [run_bwd_poisoned(dout, q, k, v, causal, head_dim ** -0.5, deterministic=True) for _ in range(2)]
    assert all(torch.equal(a, b) for a, b in zip(*runs))


def _kernel_names(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.key for e in prof.key_averages() if "flashcore" in e.key or "_kernel" in e.key]


def ran_ptx_library(names):
    """Every flashcore kernel's first template argument is its library's Arch, 1080 for sm80_ptx;
    on a Hopper the PTX backward is the mma.sync flash_bwd_kernel (the native one is
    hopper::bwd_kernel, wgmma, at every head dim)."""
    ours = [n for n in names if "flashcore::" in n]
    return (any("fwd_kernel" in n for n in ours) and any("flash_bwd_kernel" in n for n in ours)
            and any("preprocess" in n for n in ours) and any("convert" in n for n in ours)
            and all("Arch)1080" in n for n in ours) and not any("hopper" in n for n in ours))


def test_forced_ptx_backward_runs_the_ptx_library(forced_ptx):
    q, k, v, dout = fresh(1, 2, 100, 100, 128, torch.float16, 5)
    names = _kernel_names(lambda: run_bwd_poisoned(dout, q, k, v, True, 128 ** -0.5))
    assert ran_ptx_library(names), names
    _attention._set_forced_arch(None)
    names = _kernel_names(lambda: run_bwd_poisoned(dout, q, k, v, True, 128 ** -0.5))
    assert not any("Arch)1080" in n for n in names), names
    if flashcore.select_arch(torch.cuda.get_device_capability()) == "sm90a":
        assert any("hopper::bwd_kernel" in n for n in names), names


@pytest.mark.parametrize("head_dim", [72, 96])
def test_sm90a_backward_runs_72_to_96_on_its_own_96_kernel(head_dim):
    """sm90a has a 96 backward (64-byte swizzled tiles): 72..96 no longer pay the 128 kernel's
    columns."""
    if flashcore.select_arch(torch.cuda.get_device_capability()) != "sm90a":
        pytest.skip("the 96 backward instantiation is sm90a's")
    q, k, v, dout = fresh(1, 2, 100, 100, head_dim, torch.bfloat16, 11)
    names = _kernel_names(lambda: run_bwd_poisoned(dout, q, k, v, True, head_dim ** -0.5))
    assert any(re.search(r"hopper::bwd_kernel<[^,<>]+, 96,", n) for n in names), names


def test_pretend_newer_gpu_gets_the_ptx_library_with_one_warning(monkeypatch):
    """The user's path on a GPU with no SASS here (e.g. a Blackwell, capability 10.0): select_arch
    picks the PTX library, one warning names the GPU and says the path is not tuned, forward and
    backward run the PTX kernels and pass the oracle. Emulated on this GPU by reporting 10.0."""
    import warnings
    real_name = torch.cuda.get_device_name()
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (10, 0))
    monkeypatch.setattr(_attention, "_ptx_warned_gpus", set())
    _attention._device_arch.cache_clear()
    try:
        q, k, v, dout = fresh(2, 3, 129, 200, 64, torch.bfloat16, 11)
        leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            names = _kernel_names(lambda: flashcore.attention(*leaves, causal=True).backward(dout))
            flashcore.attention(q, k, v, causal=True)  # a second call: no second warning
        messages = [str(w.message) for w in caught if "flashcore" in str(w.message)]
        assert len(messages) == 1, messages
        assert "%s (compute capability 10.0)" % real_name in messages[0] and "not tuned" in messages[0]
        assert ran_ptx_library(names) and any("Arch)1080" in n for n in names), names
        ref = attention_reference_grads(q, k, v, dout, causal=True)
        theirs = torch_math_grads(q, k, v, dout, True, 64 ** -0.5)
        for leaf, r, t in zip(leaves, ref, theirs):
            assert rel_err(leaf.grad, r) <= 2 * max(rel_err(t, r), UNIT_ROUNDOFF[torch.bfloat16])
    finally:
        _attention._device_arch.cache_clear()


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_strided_inputs_and_custom_scale(dtype):
    qkv = torch.randn(2, 200, 3, 4, 64, device="cuda", dtype=dtype)
    q, k, v = qkv.unbind(2)
    assert not q.is_contiguous()
    dout = torch.randn(2, 200, 4, 64, device="cuda", dtype=dtype)
    check_grads(q, k, v, dout, causal=True, scale=0.3)
    check_grads(q, k, v, dout, causal=False, scale=-0.7)


# (batch, heads, seqlen_q, seqlen_k): one launch chunk; and five (non-causal: 17 key blocks of 128 on
# 132 SMs put 7 of the 32 (batch, head) groups in a chunk, bwd_block_order.cuh), the last partial.
@pytest.mark.parametrize("shape", [(2, 8, 1000, 777), (4, 8, 1500, 2100)], ids=["one_chunk", "five_chunks"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_deterministic_mode_three_runs_bitwise_equal(shape, causal, head_dim):
    q, k, v, dout = fresh(*shape, head_dim, torch.bfloat16, 17)
    scale = head_dim ** -0.5
    runs = [run_bwd_poisoned(dout, q, k, v, causal, scale, deterministic=True) for _ in range(3)]
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert torch.equal(a, b)
    # the fixed-order result is a correct one: close to the atomics path, and passes the oracle
    fast = run_bwd_poisoned(dout, q, k, v, causal, scale)
    for a, b in zip(runs[0], fast):
        assert (a.float() - b.float()).abs().max().item() <= 2e-2 * b.float().abs().max().item()
    ref = attention_reference_grads(q, k, v, dout, causal=causal, softmax_scale=scale)
    theirs = torch_math_grads(q, k, v, dout, causal, scale)
    for o, t, r in zip(runs[0], theirs, ref):
        assert rel_err(o, r) <= 2 * max(rel_err(t, r), UNIT_ROUNDOFF[torch.bfloat16])


def test_public_api_backward_matches_the_kernels_and_the_oracle():
    q, k, v, dout = fresh(2, 4, 333, 257, 128, torch.float16, 23)
    for t in (q, k, v):
        t.requires_grad_(True)
    out = flashcore.attention(q, k, v, causal=True, deterministic=True)
    out.backward(dout)
    want = run_bwd_poisoned(dout, q.detach(), k.detach(), v.detach(), True, 128 ** -0.5, deterministic=True)
    for t, w in zip((q, k, v), want):
        assert torch.equal(t.grad, w)
    # .sum().backward() hands the op a stride-0 gradient: it must be made readable, not misread.
    for t in (q, k, v):
        t.grad = None
    flashcore.attention(q, k, v).float().sum().backward()
    ref = attention_reference_grads(q, k, v, torch.ones_like(dout))
    for t, r in zip((q, k, v), ref):
        assert rel_err(t.grad, r) < 1e-2


def test_grad_through_returned_lse():
    q, k, v, dout = fresh(1, 2, 100, 130, 64, torch.bfloat16, 31)
    dlse = torch.randn(1, 2, 100, device="cuda")
    for t in (q, k, v):
        t.requires_grad_(True)
    out, lse = flashcore.attention(q, k, v, causal=True, return_lse=True)
    ((out.float() * dout.float()).sum() + (lse * dlse).sum()).backward()
    ref = attention_reference_grads(q, k, v, dout, causal=True, dlse=dlse)
    for t, r in zip((q, k, v), ref):
        assert rel_err(t.grad, r) < 2e-2


def test_double_backward_raises_a_clear_error():
    q, k, v, _ = fresh(1, 2, 64, 64, 64, torch.float16, 3)
    q.requires_grad_(True)
    out = flashcore.attention(q, k, v)
    (gq,) = torch.autograd.grad(out.float().sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match="does not support double backward"):
        gq.float().sum().backward()


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_forward_backward_step(backend, monkeypatch):
    """Forward + loss compiled with fullgraph=True (dynamo does not trace Tensor.backward() itself);
    .backward() outside then runs the backward graph AOTAutograd compiled with it. The backward must
    go through flashcore's backward op (counted) and match eager autograd."""
    q, k, v, dout = fresh(2, 4, 128, 160, 64, torch.bfloat16, 5)
    w = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k.requires_grad_(True)
    v.requires_grad_(True)

    def loss_fn(q, k, v, w, dout):
        out = flashcore.attention(q @ w, k, v, causal=True)
        return (out.float() * dout.float()).sum()

    eager = torch.autograd.grad(loss_fn(q, k, v, w, dout), (w, k, v))
    calls = []
    real_bwd = _backward.attention_bwd_into

    def counting_bwd(*args, **kwargs):
        calls.append(1)
        return real_bwd(*args, **kwargs)

    monkeypatch.setattr(_backward, "attention_bwd_into", counting_bwd)  # what the backward op calls
    compiled = torch.compile(loss_fn, fullgraph=True, backend=backend)
    assert all(t.grad is None for t in (w, k, v))
    loss = compiled(q, k, v, w, dout)
    assert calls == [], "the compiled forward ran a backward"
    loss.backward()
    assert len(calls) == 1, "flashcore's backward op ran %d times in the compiled backward" % len(calls)
    for t, e in zip((w, k, v), eager):
        assert t.grad is not None
        assert (t.grad.float() - e.float()).abs().max().item() <= 1e-2 * e.float().abs().max().item() + 1e-3


def test_cuda_graph_capture_of_forward_and_backward():
    q, k, v, dout = fresh(2, 4, 200, 300, 128, torch.float16, 13)
    for t in (q, k, v):
        t.requires_grad_(True)

    def step():
        out = flashcore.attention(q, k, v, causal=True)
        return torch.autograd.grad(out, (q, k, v), dout)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        step()  # warm-up on a side stream, as torch's CUDA graph docs ask
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_grads = step()
    for seed in (41, 42):
        new = fresh(2, 4, 200, 300, 128, torch.float16, seed)
        with torch.no_grad():
            for dst, src in zip((q, k, v, dout), new):
                dst.copy_(src)
        graph.replay()
        torch.cuda.synchronize()
        eager = step()
        for a, b in zip(static_grads, eager):
            # fast mode accumulates dQ with atomics: equal up to summation order
            assert (a.float() - b.float()).abs().max().item() <= 1e-2 * b.float().abs().max().item()
        assert torch.equal(static_grads[1], eager[1]) and torch.equal(static_grads[2], eager[2])


def test_backward_scratch_is_linear_in_seqlen():
    """Peak extra memory of one backward at S = 16k (b1 h16 d128 bf16): outputs dq, dk, dv
    (3 x 64 MiB) plus float32 scratch dq_accum (128 MiB) and dsum (1 MiB); no S x S."""
    b, h, s, d = 1, 16, 16384, 128
    q, k, v, dout = fresh(b, h, s, s, d, torch.bfloat16, 1)
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, True, d ** -0.5, False)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    grads = torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, True, d ** -0.5, False)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    expected = 3 * q.numel() * 2 + b * h * s * d * 4 + b * h * s * 4
    print("bwd peak extra memory at S=16k b1h16d128 bf16: %.1f MiB (outputs+scratch %.1f MiB)"
          % (peak / 2**20, expected / 2**20))
    assert peak <= expected * 1.05 + 2**20
    assert all(torch.isfinite(g).all() for g in grads)


class Block(torch.nn.Module):
    def __init__(self, dim, heads, attn):
        super().__init__()
        self.heads, self.attn = heads, attn
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, s, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, dim // self.heads).unbind(2)
        if self.attn == "flashcore":
            a = flashcore.attention(q, k, v, causal=True)
        else:
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True).transpose(1, 2)
        x = x + self.proj(a.reshape(b, s, dim))
        return x + self.mlp(self.norm2(x))


def train_losses(attn, steps=100):
    torch.manual_seed(0)
    vocab, dim, heads, seqlen, batch = 64, 256, 4, 128, 16
    emb = torch.nn.Embedding(vocab, dim).cuda()
    pos = torch.nn.Parameter(0.02 * torch.randn(seqlen, dim, device="cuda"))
    block = Block(dim, heads, attn).cuda()
    head = torch.nn.Linear(dim, vocab).cuda()
    params = [pos] + list(emb.parameters()) + list(block.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=3e-3)
    g = torch.Generator(device="cuda").manual_seed(1)
    losses = []
    for _ in range(steps):
        # Next-token prediction where each sequence draws its tokens i.i.d. from its own random
        # 4-token subset of the vocabulary: without context the best loss is log(64) = 4.16, with
        # the prefix it tends to log(4) = 1.39, and only attention can read the prefix (averaging
        # over it recovers the subset; one causal layer learns that within tens of steps). A
        # motif-copy task (repeat 16 tokens) needs positional attention at a fixed offset and
        # stayed at ~0.92x the initial loss after 100 steps (H100 run 4), for SDPA too.
        subset = torch.rand(batch, vocab, device="cuda", generator=g).argsort(-1)[:, :4]
        tokens = subset.gather(1, torch.randint(0, 4, (batch, seqlen + 1), device="cuda", generator=g))
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = head(block(emb(tokens[:, :-1]) + pos))
        loss = F.cross_entropy(logits.float().reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_tiny_transformer_trains_like_sdpa():
    """Same seed, same data, 100 AdamW steps in bf16 autocast: flashcore vs torch SDPA. Tolerance
    (bf16 noise): each step's losses within 3% + 0.02 of each other; both fall below 0.8x the
    initial loss (the model learns; the comparison is not between two untrained curves: on CPU in
    float32 + bf16 autocast this task goes 4.27 -> 2.53 in 100 steps, 0.59x)."""
    ours = train_losses("flashcore")
    theirs = train_losses("sdpa")
    print("loss curves (step: flashcore / sdpa):",
          " ".join("%d: %.4f/%.4f" % (i, a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if i % 10 == 0 or i == 99))
    assert all(map(lambda x: x == x, ours)), "NaN loss"
    worst = max(abs(a - b) - (0.03 * abs(b) + 0.02) for a, b in zip(ours, theirs))
    assert worst <= 0, "loss curves differ beyond bf16 tolerance by %.4f" % worst
    assert ours[-1] < 0.8 * ours[0] and theirs[-1] < 0.8 * theirs[0], (ours[-1], theirs[-1], ours[0])


SANITIZER_CASE = textwrap.dedent("""
    import torch, flashcore
    for dtype in (torch.float16, torch.bfloat16):
        for d in (64, 128, 40, 72):  # and head dims run on them (predicated)
            for causal in (False, True):
                for det in (False, True):
                    for sq, sk in ((67, 131), (131, 67)) if causal else ((67, 131),):
                        q = torch.randn(1, sq, 2, d, device="cuda", dtype=dtype, requires_grad=True)
                        k = torch.randn(1, sk, 2, d, device="cuda", dtype=dtype, requires_grad=True)
                        v = torch.randn(1, sk, 2, d, device="cuda", dtype=dtype, requires_grad=True)
                        out = flashcore.attention(q, k, v, causal=causal, deterministic=det)
                        out.backward(torch.randn_like(out))
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_compute_sanitizer_small_case(tool, tmp_path):
    # "bwd" matches every backward kernel: preprocess, convert, flash_bwd_kernel and hopper::bwd_kernel.
    run_sanitizer(tool, SANITIZER_CASE, "bwd", tmp_path)


def test_build_covers_this_gpu():
    info = flashcore.build_info()
    arch = flashcore.select_arch(torch.cuda.get_device_capability())
    for dtype in ("fp16", "bf16"):
        for d in (64, 128):
            for causal in (False, True):
                assert {"arch": arch, "dtype": dtype, "head_dim": d, "causal": causal} in info["bwd_kernels"]


# sm90a's mma.sync backward (kernels/sm80/bwd_kernel.cuh built for sm90a), the fallback for layouts
# the TMA cannot describe, which no valid call reaches: FLASHCORE_BWD_SM90_MMA_SYNC=1 (read once per
# process) sends every sm90a backward there, so the predicated head dims run through it in a
# child process, with this suite's oracle and gap checks.
FALLBACK_CASE = textwrap.dedent("""
    import importlib.util, sys
    import torch
    spec = importlib.util.spec_from_file_location("bwd_suite", sys.argv[1])
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    # 72 and 96 run on the 96 launcher, whose fallback is the 128 launcher's (the mma.sync kernel
    # has no 96): the same dq_accum, 128 columns wide.
    for d in (8, 40, 72, 96, 120, 64, 128):
        for causal in (False, True):
            for det in (False, True):
                for i, shape in enumerate(((2, 3, 67, 131), (1, 2, 131, 67), (1, 1, 1, 77))):
                    q, k, v, dout = m.fresh(*shape, d, torch.bfloat16 if i % 2 else torch.float16, 7 * d + i)
                    m.check_grads(q, k, v, dout, causal, deterministic=det)
                    m.check_columns_past_head_dim(q, k, v, dout, causal, det)
        names = m._kernel_names(lambda: m.run_bwd_poisoned(dout, q, k, v, True, d ** -0.5))
        assert any("flash_bwd_kernel" in n and "Arch)90" in n for n in names), (d, names)
        assert not any("hopper::bwd_kernel" in n for n in names), (d, names)
    print("fallback case done")
""")


def test_sm90a_mma_sync_fallback_backward_with_predicated_head_dims():
    import subprocess
    if flashcore.select_arch(torch.cuda.get_device_capability()) != "sm90a":
        pytest.skip("the mma.sync fallback is sm90a's")
    env = dict(os.environ, FLASHCORE_BWD_SM90_MMA_SYNC="1")
    r = subprocess.run([sys.executable, "-c", FALLBACK_CASE, os.path.abspath(__file__)], env=env,
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0 and "fallback case done" in r.stdout, (r.stdout[-4000:] + r.stderr[-4000:])


if __name__ == "__main__":
    check_expected_gpu()
    ERRORS.reset()
    rc = pytest.main([__file__, "-q", "-rs", "-s", "-p", "no:cacheprovider"]
                     + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else []))
    print_error_summary()
    sys.exit(rc)
