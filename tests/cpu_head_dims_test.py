"""CPU suite for the head dims (issue 15; no GPU): every multiple of 8 from 8 to 256 is accepted and
runs on the next instantiated head dim (forward 64, 96, 128 or 256, backward 64, 128 or 256;
sm90a also 192 in both) with predicated loads and stores;
anything else raises a ValueError naming the supported set. Checked here: the validation errors
of every entry point, the accepted set, the default softmax scale 1/sqrt(head_dim), the fake
(meta) implementations' output shapes, the extension's choice of instantiation (kernel_head_dim
and its errors) and the backward's scratch width. The kernels themselves are the GPU suites'."""

import math
import os
import sys
import types

import pytest
import torch

import flashcore
from flashcore import _attention, _backward, _checks, api

ARCHS = ("sm80", "sm89", "sm90a", "sm80_ptx")
ACCEPTED = tuple(range(8, 257, 8))
# Head dims the brief names for the odd multiples of 8 (Phi-2 80, Phi-3 96, ...).
ODD = (8, 40, 72, 80, 96, 120, 136, 200, 248)
REJECTED_NOT_MULTIPLE = (4, 12, 20, 100, 127)
REJECTED_TOO_LARGE = (264, 320, 512)


def t(*shape, dtype=torch.float16, device="cpu"):
    return torch.randn(*shape).to(dtype=dtype, device=device)


def cu(*lengths):
    return torch.tensor([0] + list(torch.tensor(lengths).cumsum(0).tolist()), dtype=torch.int32)


def message(fn, d):
    msg = "%s: head_dim must be a multiple of 8 from 8 to 256, got %d" % (fn, d)
    if d > 256 and d % 8 == 0:
        msg += " (head dims above 256 have no kernels)"
    return "^" + msg.replace("(", r"\(").replace(")", r"\)") + "$"


# --- the supported set -------------------------------------------------------------------------

def test_supported_head_dims_are_every_multiple_of_8_up_to_256():
    assert flashcore.SUPPORTED_HEAD_DIMS == _checks.SUPPORTED_HEAD_DIMS == ACCEPTED
    assert _attention.SUPPORTED_HEAD_DIMS is _checks.SUPPORTED_HEAD_DIMS
    assert _checks.KERNEL_HEAD_DIMS == (64, 96, 128, 256) and _checks.MAX_HEAD_DIM == 256
    assert _checks.BWD_KERNEL_HEAD_DIMS == (64, 128, 256)


def test_kernel_head_dims_are_the_instantiated_ones():
    """Python's KERNEL_HEAD_DIMS (forward) and BWD_KERNEL_HEAD_DIMS are what the build instantiated,
    per (arch, dtype, causal); sm90a alone also has 192, forward and backward, and a backward 96."""
    info = flashcore.build_info()
    for key in ("kernels", "bwd_kernels"):
        per_family = {}
        for k in info[key]:
            per_family.setdefault((k["arch"], k["dtype"], k["causal"]), set()).add(k["head_dim"])
        assert len(per_family) == len(ARCHS) * 4, key
        for (arch, _, _), dims in per_family.items():
            if key == "kernels":
                assert dims == set(_checks.KERNEL_HEAD_DIMS) | ({192} if arch == "sm90a" else set()), (key, arch)
            else:
                assert dims == set(_checks.BWD_KERNEL_HEAD_DIMS) | ({96, 192} if arch == "sm90a" else set()), (key, arch)


def test_build_info_lists_the_head_dims_per_arch_and_dtype():
    got = flashcore.build_info()["head_dims"]
    assert set(got) == set(ARCHS)
    for arch in ARCHS:
        assert set(got[arch]) == {"fp16", "bf16"}
        for dtype in ("fp16", "bf16"):
            fwd = [64, 96, 128, 192, 256] if arch == "sm90a" else [64, 96, 128, 256]
            want = {"fwd": fwd, "bwd": [64, 96, 128, 192, 256] if arch == "sm90a" else [64, 128, 256]}
            want["decode"] = [64, 128, 256]  # every library, the portable PTX one included
            assert got[arch][dtype] == want, (arch, dtype)


@pytest.mark.parametrize("backward", [False, True])
@pytest.mark.parametrize("arch", ARCHS)
def test_each_head_dim_runs_on_the_next_instantiated_one(arch, backward):
    from flashcore import _C
    for dtype in ("fp16", "bf16"):
        for causal in (False, True):
            got = {d: _C.kernel_head_dim(arch, dtype, d, causal, backward) for d in ACCEPTED}
            if backward:  # 64, 128, 256 on every arch, and 96 and 192 on sm90a
                want = {d: 64 if d <= 64 else 96 if d <= 96 and arch == "sm90a" else 128 if d <= 128
                        else 192 if d <= 192 and arch == "sm90a" else 256 for d in ACCEPTED}
            else:  # 64, 96, 128, 256 on every arch, and 192 on sm90a
                want = {d: 64 if d <= 64 else 96 if d <= 96 else 128 if d <= 128
                        else 192 if d <= 192 and arch == "sm90a" else 256 for d in ACCEPTED}
            assert got == want
            for d in REJECTED_NOT_MULTIPLE + REJECTED_TOO_LARGE + (0, -8):
                assert _C.kernel_head_dim(arch, dtype, d, causal, backward) == 0, d


# --- validation errors: every entry point names the supported set --------------------------------

@pytest.mark.parametrize("d", REJECTED_NOT_MULTIPLE + REJECTED_TOO_LARGE)
def test_attention_rejects_head_dims_outside_the_set(d):
    q, k = t(2, 16, 4, d), t(2, 24, 4, d)
    with pytest.raises(ValueError, match=message("flashcore.attention", d)):
        flashcore.attention(q, k, k)
    # with grad (the custom op's path) and with a feature (flashcore.api's checks) alike
    with pytest.raises(ValueError, match=message("flashcore.attention", d)):
        flashcore.attention(q.requires_grad_(True), k, k, causal=True)
    with pytest.raises(ValueError, match=message("flashcore.attention", d)):
        flashcore.attention(q, t(2, 24, 2, d), t(2, 24, 2, d), window_size=(8, 0))


@pytest.mark.parametrize("d", REJECTED_NOT_MULTIPLE + REJECTED_TOO_LARGE)
def test_flash_attn_functions_reject_head_dims_outside_the_set(d):
    with pytest.raises(ValueError, match=message("flashcore.flash_attn_func", d)):
        flashcore.flash_attn_func(t(2, 16, 8, d), t(2, 24, 2, d), t(2, 24, 2, d))
    with pytest.raises(ValueError, match=message("flashcore.flash_attn_qkvpacked_func", d)):
        flashcore.flash_attn_qkvpacked_func(t(2, 16, 3, 4, d))
    with pytest.raises(ValueError, match=message("flashcore.flash_attn_kvpacked_func", d)):
        flashcore.flash_attn_kvpacked_func(t(2, 16, 4, d), t(2, 24, 2, 2, d))
    with pytest.raises(ValueError, match=message("flashcore.flash_attn_varlen_func", d)):
        flashcore.flash_attn_varlen_func(t(12, 4, d), t(18, 2, d), t(18, 2, d), cu(5, 7), cu(6, 12), 7, 12)


def test_head_dim_0_is_an_empty_tensor_error():
    with pytest.raises(ValueError, match=r"flashcore.attention: q is empty \(shape \(2, 16, 4, 0\)\)"):
        flashcore.attention(t(2, 16, 4, 0), t(2, 24, 4, 0), t(2, 24, 4, 0))
    with pytest.raises(ValueError, match=r"flashcore.flash_attn_func: q is empty"):
        flashcore.flash_attn_func(t(2, 16, 4, 0), t(2, 24, 4, 0), t(2, 24, 4, 0))


@pytest.mark.parametrize("d", (264, 512))
def test_kv_cache_takes_up_to_256_and_says_so(d):
    with pytest.raises(ValueError, match=r"flashcore.flash_attn_with_kvcache: head_dim must be a multiple of 8 from 8 "
                                         r"to 256, got %d" % d):
        flashcore.flash_attn_with_kvcache(t(2, 1, 4, d, dtype=torch.bfloat16), t(2, 32, 2, d, dtype=torch.bfloat16),
                                          t(2, 32, 2, d, dtype=torch.bfloat16), cache_seqlens=3)


@pytest.mark.parametrize("d", (8, 40, 80, 96, 120, 136, 200, 256))
def test_kv_cache_takes_multiples_of_8_up_to_256(d):
    # Past every head-dim check; CPU tensors stop at the device check.
    with pytest.raises(ValueError, match="must be CUDA tensors"):
        flashcore.flash_attn_with_kvcache(t(2, 1, 4, d, dtype=torch.bfloat16), t(2, 32, 2, d, dtype=torch.bfloat16),
                                          t(2, 32, 2, d, dtype=torch.bfloat16), cache_seqlens=3)


def test_paged_varlen_takes_up_to_256_and_says_so(monkeypatch):
    monkeypatch.setattr(_checks, "check_device", lambda fn, q: None)  # no GPU: reach the KV-cache module
    q = t(12, 4, 264, dtype=torch.bfloat16)
    cache = t(8, 16, 2, 264, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="flash_attn_varlen_func: head_dim must be a multiple of 8 from 8 to 256"):
        flashcore.flash_attn_varlen_func(q, cache, cache, cu(5, 7), None, 7, 64,
                                         block_table=torch.arange(8, dtype=torch.int32).view(2, 4),
                                         seqused_k=torch.tensor([30, 40], dtype=torch.int32))


# --- the accepted set reaches the device check (no GPU here) ------------------------------------

@pytest.mark.parametrize("d", ACCEPTED)
def test_every_supported_head_dim_passes_the_checks(d):
    q, k = t(2, 16, 4, d), t(2, 24, 4, d)
    for call in (lambda: flashcore.attention(q, k, k, causal=True),
                 lambda: flashcore.attention(q.detach().requires_grad_(True), k, k),
                 lambda: flashcore.attention(q, t(2, 24, 2, d), t(2, 24, 2, d), softcap=10.0),
                 lambda: flashcore.flash_attn_func(q, k, k, window_size=(4, 4)),
                 lambda: flashcore.flash_attn_varlen_func(t(12, 4, d), t(18, 2, d), t(18, 2, d), cu(5, 7),
                                                          cu(6, 12), 7, 12)):
        with pytest.raises(ValueError, match="must be CUDA tensors"):
            call()


# --- the default softmax scale is 1/sqrt(the real head dim) -----------------------------------

@pytest.fixture
def core(monkeypatch):
    calls = []

    def fake_core(q, k, v, **kw):
        calls.append(kw)
        lse_shape = (q.shape[1], q.shape[0]) if kw.get("cu_seqlens_q") is not None else \
            (q.shape[0], q.shape[2], q.shape[1])
        return torch.zeros_like(q), torch.zeros(lse_shape)

    monkeypatch.setattr(api, "attention_core", fake_core)
    monkeypatch.setattr(_checks, "check_device", lambda fn, q: None)
    return calls


@pytest.mark.parametrize("d", ODD + (64, 128))
def test_default_scale_is_one_over_sqrt_head_dim(core, d):
    flashcore.flash_attn_func(t(2, 16, 8, d), t(2, 24, 2, d), t(2, 24, 2, d))
    flashcore.flash_attn_varlen_func(t(12, 4, d), t(18, 2, d), t(18, 2, d), cu(5, 7), cu(6, 12), 7, 12)
    flashcore.flash_attn_func(t(2, 16, 8, d), t(2, 24, 2, d), t(2, 24, 2, d), softmax_scale=0.5)
    assert [c["softmax_scale"] for c in core] == [1 / math.sqrt(d), 1 / math.sqrt(d), 0.5]
    assert _attention._DEFAULT_SCALE[d] == 1 / math.sqrt(d)  # flashcore.attention's direct path


def test_direct_path_default_scale_covers_every_supported_head_dim():
    assert set(_attention._DEFAULT_SCALE) == set(ACCEPTED)


def test_check_inputs_returns_the_real_head_dims_scale(monkeypatch):
    q = t(1, 4, 2, 40)
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: torch.device("cuda", 0)))
    assert _attention._check_inputs(q, q, q, False, None) == 1 / math.sqrt(40)
    assert _attention._check_inputs(q, q, q, True, 0.25) == 0.25


# --- fake (meta) implementations give the real head dim's shapes ---------------------------------

@pytest.mark.parametrize("d", (40, 80, 96, 120, 192, 200, 256))
def test_fwd_fake_impl_shapes_follow_the_head_dim(d):
    q = torch.empty(2, 17, 8, d, device="meta", dtype=torch.bfloat16)
    k = torch.empty(2, 33, 2, d, device="meta", dtype=torch.bfloat16)
    out, lse, resid = torch.ops.flashcore.attention_fwd(q, k, k, True, 0.1, False, -1, -1, 0.0, None, None, None,
                                                        None, 0, 0, True)
    assert out.shape == (2, 17, 8, d) and out.dtype == torch.bfloat16
    assert resid.shape == out.shape and lse.shape == (2, 8, 17) and lse.dtype == torch.float32
    qp = torch.empty(40, 8, d, device="meta", dtype=torch.float16)
    kp = torch.empty(50, 2, d, device="meta", dtype=torch.float16)
    c = torch.empty(4, device="meta", dtype=torch.int32)
    out, lse, _ = torch.ops.flashcore.attention_fwd(qp, kp, kp, False, 0.1, False, -1, -1, 0.0, None, c, c, None,
                                                    20, 30)
    assert out.shape == (40, 8, d) and lse.shape == (8, 40)


@pytest.mark.parametrize("d", (40, 80, 96, 120, 192, 200, 256))
def test_bwd_fake_impl_shapes_follow_the_head_dim(d):
    q = torch.empty(2, 5, 8, d, device="meta", dtype=torch.float16)
    k = torch.empty(2, 9, 2, d, device="meta", dtype=torch.float16)
    lse = torch.empty(2, 8, 5, device="meta")
    sink = torch.empty(8, device="meta")
    dq, dk, dv, dsink = torch.ops.flashcore.attention_bwd(q, q, k, k, q, lse, None, False, 0.1, False, -1, -1,
                                                          0.0, sink)
    assert (dq.shape, dk.shape, dv.shape, dsink.shape) == (q.shape, k.shape, k.shape, (8,))


@pytest.mark.parametrize("d", (8, 40, 80, 96, 120, 200, 256))
def test_autograd_on_meta_gives_gradients_of_the_head_dim(d):
    q = torch.empty(2, 17, 4, d, device="meta", dtype=torch.bfloat16, requires_grad=True)
    k = torch.empty(2, 33, 4, d, device="meta", dtype=torch.bfloat16, requires_grad=True)
    v = torch.empty(2, 33, 4, d, device="meta", dtype=torch.bfloat16, requires_grad=True)
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, True, 1 / math.sqrt(d), True)
    assert out.shape == (2, 17, 4, d)
    (out.float().sum() + lse.sum()).backward()
    for x in (q, k, v):
        assert x.grad.shape == x.shape and x.grad.dtype == x.dtype


def test_make_fx_traces_a_head_dim_80_step():
    from torch.fx.experimental.proxy_tensor import make_fx

    def step(q, k, v):
        out = torch.ops.flashcore.attention_fwd(q, k, v, True, 80 ** -0.5, False)[0]
        return (out,) + torch.autograd.grad(out.float().sum(), (q, k, v))

    q = torch.empty(2, 17, 4, 80, device="meta", dtype=torch.float16, requires_grad=True)
    gm = make_fx(step, tracing_mode="fake")(q, q.detach().requires_grad_(True), q.detach().requires_grad_(True))
    outs = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    assert [tuple(o.meta["val"].shape) for o in outs] == [(2, 17, 4, 80)] * 4


# --- what reaches the extension (a recorder stands in for it: no GPU) -----------------------------

@pytest.fixture
def recorded_bwd(monkeypatch):
    """The extension's bwd replaced by a recorder (sm90a, real kernel_head_dim) and torch.empty by
    one that notes the shapes it makes: returns (launched argument tuples, shapes made)."""
    from flashcore import _C
    launched, made = [], []
    monkeypatch.setattr(_attention, "_C", types.SimpleNamespace(
        bwd=lambda *a: launched.append(a), bwd_block_m=64, kernel_head_dim=_C.kernel_head_dim,
        dq_accum_cols=_C.dq_accum_cols, dq_accum_floats=_C.dq_accum_floats))
    monkeypatch.setattr(_attention, "_arch_for", lambda device: "sm90a")
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=0))
    real_empty = torch.empty

    def empty(*shape, **kw):
        x = real_empty(*shape, **kw)
        made.append(tuple(x.shape))
        return x

    monkeypatch.setattr(torch, "empty", empty)
    return launched, made


@pytest.mark.parametrize("d, width", [(8, 64), (40, 64), (64, 64), (72, 128), (88, 128), (96, 128), (120, 128),
                                      (128, 128), (136, 192), (192, 192), (200, 256), (256, 256)])
def test_backward_scratch_is_as_wide_as_the_kernel_it_runs_on(recorded_bwd, d, width):
    """dq_accum's rows are the instantiation's head dim rounded up to 64 columns
    (kernels/flash_bwd_api.h dq_accum_cols): on sm90a 72..96 run on the backward's 96 and take 128
    (the width of its mma.sync fallback, the 128 kernel), 136..192 take 192; dq/dk/dv, the head_dim
    argument and the strides are the call's."""
    launched, made = recorded_bwd
    q, k, v, dout, out = (t(1, 64, 2, d) for _ in range(5))
    lse = torch.zeros(1, 2, 64)
    grads = [torch.empty_like(x) for x in (q, k, v)]
    _backward.attention_bwd_into(dout, q, k, v, out, lse, *grads, True, d ** -0.5)
    assert (1 * 2 * 64 * width,) in made  # dq_accum: flat, the kernel's row width
    (args,) = launched
    assert args[1:3] == ("sm90a", "fp16") and args[21] == d  # head_dim: the call's
    assert args[22] == (64 * 2 * d, 2 * d, d)  # q's strides


def test_eager_forward_passes_the_real_head_dim_and_strides(monkeypatch):
    launched = []
    monkeypatch.setattr(_attention, "_C", types.SimpleNamespace(fwd=lambda *a: launched.append(a)))
    monkeypatch.setattr(_attention, "_arch_for", lambda device: "sm80")
    monkeypatch.setattr(_attention, "_raw_stream", lambda device: 0)
    q, k = t(2, 16, 4, 40), t(2, 24, 4, 40)
    out, lse = q.clone(), torch.zeros(2, 4, 16)
    _attention._launch(q, k, k, out, lse, False, 40 ** -0.5)
    (args,) = launched
    assert args[12] == 40 and args[13] == (16 * 4 * 40, 4 * 40, 40) and args[17] == 40 ** -0.5


# --- the extension itself ---------------------------------------------------------------------

def _fwd_args(**overrides):
    strides = (40, 40, 40)
    args = dict(device=0, arch="sm90a", dtype="fp16", q=0, k=0, v=0, o=0, lse=0, batch=1, heads=1,
                seqlen_q=1, seqlen_k=1, head_dim=40, q_strides=strides, k_strides=strides,
                v_strides=strides, o_strides=strides, softmax_scale=0.125, causal=False, stream=0)
    args.update(overrides)
    return args


@pytest.mark.parametrize("d", (4, 12, 100, -8, 0))
def test_extension_rejects_a_head_dim_that_is_not_a_positive_multiple_of_8(d):
    from flashcore import _C
    with pytest.raises(ValueError, match="flashcore: head_dim must be a positive multiple of 8, got %d" % d):
        _C.fwd(**_fwd_args(head_dim=d))


@pytest.mark.parametrize("d", REJECTED_TOO_LARGE)
def test_extension_names_the_missing_kernel_above_256(d):
    from flashcore import _C
    with pytest.raises(ValueError, match=r"no forward kernel compiled for arch=sm80 dtype=bf16 head_dim=%d causal "
                                         r"\(a head dim runs on the smallest compiled head dim >= it" % d):
        _C.fwd(**_fwd_args(arch="sm80", dtype="bf16", head_dim=d, causal=True))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error path")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("d", ODD)
def test_extension_finds_a_kernel_for_every_odd_head_dim(arch, d):
    """No GPU here: a launch that found its kernel fails with CUDA's error, not flashcore's lookup error."""
    from flashcore import _C
    with pytest.raises(RuntimeError, match=r"flashcore: forward kernel launch failed: cuda\w+"):
        _C.fwd(**_fwd_args(arch=arch, head_dim=d))


# --- v's own head dim (q/k 192, v 128: DeepSeek's multi-head latent attention) ----------------------

def test_fake_shapes_of_a_value_head_dim_pair():
    """out (and its residual) take v's head dim; the gradients take their inputs' shapes."""
    from torch.fx.experimental.proxy_tensor import make_fx

    def step(q, k, v):
        out = torch.ops.flashcore.attention_fwd(q, k, v, True, 192 ** -0.5, False)[0]
        return (out,) + torch.autograd.grad(out.float().sum(), (q, k, v))

    q = torch.empty(2, 17, 4, 192, device="meta", dtype=torch.bfloat16, requires_grad=True)
    v = torch.empty(2, 17, 4, 128, device="meta", dtype=torch.bfloat16, requires_grad=True)
    gm = make_fx(step, tracing_mode="fake")(q, q.detach().requires_grad_(True), v)
    outs = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    assert [tuple(o.meta["val"].shape) for o in outs] == [(2, 17, 4, 128), (2, 17, 4, 192), (2, 17, 4, 192),
                                                         (2, 17, 4, 128)]


def test_dq_accum_floats_cover_the_fragment_order_slabs():
    """At 64 columns dq_accum may be in fragment order (kernels/common/dq_accum_layout.h): 64 x 64
    slabs, dense ceil(seqlen_q / 64) per (batch, head), packed (total_q + 64 batch) / 64 + 1 per
    head -- the larger of that and the row layout; wider rows keep the row layout's size."""
    from flashcore import _C
    # dense: 3 x 2 x 100 rows of 64 = 38,400 floats; slabs 3 x 2 x 2 of 4096 = 49,152
    assert _C.dq_accum_floats(64, False, 0, 100, 2, 3) == 3 * 2 * 2 * 4096
    assert _C.dq_accum_floats(64, False, 0, 128, 2, 3) == 3 * 2 * 128 * 64  # equal
    # packed: 5 sequences, 300 rows, 2 heads: slabs (300 + 320) // 64 + 1 = 10 per head
    assert _C.dq_accum_floats(64, True, 300, 200, 2, 5) == 2 * 10 * 4096
    assert _C.dq_accum_floats(128, True, 300, 200, 2, 5) == 2 * 300 * 128
    assert _C.dq_accum_floats(96, False, 0, 100, 2, 3) == 3 * 2 * 100 * 128


@pytest.mark.parametrize("d, dv, width", [(192, 128, 192), (64, 128, 128), (128, 64, 128), (40, 72, 128)])
def test_backward_of_a_pair_runs_on_the_wider_head_dims_kernel(recorded_bwd, d, dv, width):
    """dq_accum is as wide as the kernel of max(head_dim, head_dim_v); head_dim and head_dim_v
    reach the extension as the call's."""
    launched, made = recorded_bwd
    q, k, v, dout, out = t(1, 64, 2, d), t(1, 64, 2, d), t(1, 64, 2, dv), t(1, 64, 2, dv), t(1, 64, 2, dv)
    lse = torch.zeros(1, 2, 64)
    grads = [torch.empty_like(x) for x in (q, k, v)]
    _backward.attention_bwd_into(dout, q, k, v, out, lse, *grads, True, d ** -0.5)
    assert (1 * 2 * 64 * width,) in made  # dq_accum: flat, the kernel's row width
    (args,) = launched
    assert args[21] == d and args[-3] == dv  # head_dim, head_dim_v (then the sink partials, zero_packed_tails)
    assert args[-1] is False  # a dense batch has no packed tails
    # out / dout with q's head dim instead of v's: refused, naming the expected shape
    with pytest.raises(ValueError, match=r"flashcore: out must have out's shape \(1, 64, 2, %d\)" % dv):
        _backward.attention_bwd_into(dout, q, k, v, t(1, 64, 2, d + 8), lse, *grads, True, d ** -0.5)


def test_eager_forward_passes_both_head_dims(monkeypatch):
    launched = []
    monkeypatch.setattr(_attention, "_C", types.SimpleNamespace(fwd=lambda *a: launched.append(a)))
    monkeypatch.setattr(_attention, "_arch_for", lambda device: "sm90a")
    monkeypatch.setattr(_attention, "_raw_stream", lambda device: 0)
    q, k, v = t(2, 16, 4, 192), t(2, 24, 4, 192), t(2, 24, 4, 128)
    out, lse = t(2, 16, 4, 128), torch.zeros(2, 4, 16)
    _attention._launch(q, k, v, out, lse, False, 192 ** -0.5)
    (args,) = launched
    assert args[12] == 192 and args[-1] == 128
    assert args[15] == (24 * 4 * 128, 4 * 128, 128) and args[16] == (16 * 4 * 128, 4 * 128, 128)  # v's, out's


def test_extension_checks_head_dim_v():
    from flashcore import _C
    with pytest.raises(ValueError, match="flashcore: head_dim_v must be a positive multiple of 8, got 12"):
        _C.fwd(**_fwd_args(head_dim_v=12))
    with pytest.raises(ValueError, match="flashcore: head_dim_v must be a positive multiple of 8, got -8"):
        _C.fwd(**_fwd_args(head_dim_v=-8))
    # the wider of the two picks the kernel: none above 256
    with pytest.raises(ValueError, match="no forward kernel compiled for arch=sm90a dtype=fp16 head_dim=264"):
        _C.fwd(**_fwd_args(head_dim=64, head_dim_v=264))
    with pytest.raises(ValueError, match="no backward kernel compiled for arch=sm80 dtype=fp16 head_dim=264"):
        _C.bwd(**_bwd_args(arch="sm80", head_dim=192, head_dim_v=264))


def _bwd_args(**overrides):
    # cpu_api_test._bwd_args' twin: that module is also copied alone into the installed-wheel test
    # (//tests/wheel), so it cannot share a helper module with this one.
    strides = (64, 64, 64)
    args = dict(device=0, arch="sm90a", dtype="fp16", q=0, k=0, v=0, o=0, dout=0, lse=0, dlse=0, dq=0, dk=0,
                dv=0, dsum=0, dq_accum=0, dq_semaphore=0, dq_semaphore_count=0, batch=1, heads=1, seqlen_q=1,
                seqlen_k=1, head_dim=64, q_strides=strides, k_strides=strides, v_strides=strides,
                o_strides=strides, do_strides=strides, dq_strides=strides, dk_strides=strides,
                dv_strides=strides, softmax_scale=0.125, causal=False, deterministic=False, stream=0)
    args.update(overrides)
    return args


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error path")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("d, dv", [(192, 128), (128, 64), (64, 128), (256, 128), (40, 72)])
def test_extension_finds_kernels_for_value_head_dim_pairs(arch, d, dv):
    """No GPU here: a launch that found its kernel fails with CUDA's error, not the lookup's."""
    from flashcore import _C
    with pytest.raises(RuntimeError, match=r"flashcore: forward kernel launch failed: cuda\w+"):
        _C.fwd(**_fwd_args(arch=arch, head_dim=d, head_dim_v=dv))
    with pytest.raises(RuntimeError, match=r"flashcore: backward kernel launch failed: cuda\w+"):
        _C.bwd(**_bwd_args(arch=arch, head_dim=d, head_dim_v=dv))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
