"""CPU suite: the extension imports and describes itself, every bad input gets a clear error, and
the custom op traces without a GPU. (The float64 reference's own checks: cpu_reference_test.py.)"""

import os
import sys
import types

import pytest
import torch

import flashcore
import venv_info
from flashcore import _attention, _checks

ARCHS = ("sm80", "sm89", "sm90a")
PTX_ARCHS = ("sm80_ptx",)  # the portable library (compute_80 PTX): GPUs with no SASS here


# Set by tests/wheel/installed_wheel_test.py, which runs this file against an installed wheel.
INSTALLED_VENV = os.environ.get("FLASHCORE_INSTALLED_WHEEL_VENV")


def test_interpreter_is_the_project_venv():
    if INSTALLED_VENV:  # a venv over the project venv, flashcore installed from the wheel into it
        assert os.path.realpath(sys.prefix) == os.path.realpath(INSTALLED_VENV)
        assert os.path.realpath(flashcore.__file__).startswith(os.path.realpath(INSTALLED_VENV) + os.sep)
        assert os.path.realpath(torch.__file__).startswith(os.path.realpath(venv_info.VENV_PREFIX) + os.sep)
        return
    assert os.path.realpath(sys.prefix) == os.path.realpath(venv_info.VENV_PREFIX), (
        "tests must run on the venv made from tools/python/requirements.lock, got %s" % sys.prefix)


def test_build_info_lists_every_compiled_kernel():
    info = flashcore.build_info()
    got = {(k["arch"], k["dtype"], k["head_dim"], k["causal"]) for k in info["kernels"]}
    # The instantiated head dims; every other multiple of 8 up to 256 runs on the next one up.
    assert _checks.KERNEL_HEAD_DIMS == (64, 96, 128, 256) and _checks.BWD_KERNEL_HEAD_DIMS == (64, 128, 256)
    every = [(a, t, c) for a in ARCHS + PTX_ARCHS for t in ("fp16", "bf16") for c in (False, True)]
    # sm90a also has 192, forward and backward, and 96 in the backward (kernels/BUILD.bazel
    # FWD_HEAD_DIMS, BWD_HEAD_DIMS).
    want_bwd = {(a, t, d, c) for a, t, c in every for d in _checks.BWD_KERNEL_HEAD_DIMS} | {
        ("sm90a", t, d, c) for t in ("fp16", "bf16") for c in (False, True) for d in (96, 192)}
    want = {(a, t, d, c) for a, t, c in every for d in _checks.KERNEL_HEAD_DIMS} | {
        ("sm90a", t, 192, c) for t in ("fp16", "bf16") for c in (False, True)}
    assert got == want
    assert len(info["kernels"]) == len(want)  # registered once each
    got_bwd = {(k["arch"], k["dtype"], k["head_dim"], k["causal"]) for k in info["bwd_kernels"]}
    # The backward has the same libraries as the forward, the portable PTX one included.
    assert got_bwd == want_bwd
    assert len(info["bwd_kernels"]) == len(want_bwd)
    assert info["cuda_runtime_version"] == 13000
    assert "cuda_13.0" in info["nvcc_version"]
    assert info["host_compiler"].startswith("gcc ")
    # The revision is kept out of _C.so (a new commit must not rebuild it or invalidate cached
    # tests); an installed wheel adds it from flashcore/_build_info.json.
    assert info["from_wheel"] == bool(INSTALLED_VENV)
    if not INSTALLED_VENV:
        assert "revision" not in info
    assert info["cudart"] == "static"


def t(*shape, dtype=torch.float16, device="cpu", **kw):
    return torch.randn(*shape, **kw).to(dtype=dtype, device=device)


GOOD = dict(q=(2, 16, 4, 64), k=(2, 24, 4, 64), v=(2, 24, 4, 64))


def call(q=None, k=None, v=None, **kw):
    q = t(*GOOD["q"]) if q is None else q
    k = t(*GOOD["k"]) if k is None else k
    v = t(*GOOD["v"]) if v is None else v
    return flashcore.attention(q, k, v, **kw)


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(q="not a tensor"), TypeError, "q must be a torch.Tensor"),
    (dict(q=t(16, 4, 64)), ValueError, r"q must be 4-D \(batch, seqlen, heads, head_dim\)"),
    (dict(k=t(2, 24, 4, 64, 1)), ValueError, "k must be 4-D"),
    (dict(q=t(*GOOD["q"], dtype=torch.float32)), TypeError, "q must be float16 or bfloat16, got torch.float32"),
    (dict(v=t(*GOOD["v"], dtype=torch.float64)), TypeError, "v must be float16 or bfloat16"),
    (dict(k=t(*GOOD["k"], dtype=torch.bfloat16), v=t(*GOOD["v"], dtype=torch.bfloat16)),
     TypeError, "q, k and v must have one dtype"),
    (dict(k=t(3, 24, 4, 64)), ValueError, "k has batch 3 but q has batch 2"),
    (dict(v=t(2, 24, 5, 64)), ValueError, "v has 5 heads but q has 4"),
    (dict(k=t(2, 24, 4, 128)), ValueError, "k has head_dim 128 but q has 64"),
    (dict(v=t(2, 23, 4, 64)), ValueError, "k and v must have one seqlen"),
    (dict(q=t(2, 16, 4, 264), k=t(2, 24, 4, 264), v=t(2, 24, 4, 264)), ValueError,
     "head_dim must be a multiple of 8 from 8 to 256, got 264"),
    (dict(q=t(2, 16, 4, 12), k=t(2, 24, 4, 12), v=t(2, 24, 4, 12)), ValueError,
     "head_dim must be a multiple of 8 from 8 to 256, got 12"),
    (dict(q=t(2, 16, 4, 128)[..., ::2]), ValueError, "q has head_dim 64|q must be contiguous in its last"),
    (dict(q=t(2, 16, 4, 64, 2)[..., 0]), ValueError, r"q must be contiguous in its last \(head_dim\) dimension"),
    (dict(q=t(2, 0, 4, 64)), ValueError, "q is empty"),
    (dict(k=t(2, 0, 4, 64), v=t(2, 0, 4, 64)), ValueError, "k is empty"),
    (dict(q=t(1, 1, 65536, 64), k=t(1, 1, 65536, 64), v=t(1, 1, 65536, 64)), ValueError, "heads must each be <= 65535"),
    (dict(causal=1), TypeError, "causal must be a bool"),
    (dict(deterministic=1), TypeError, "deterministic must be a bool"),
    (dict(deterministic=None), TypeError, "deterministic must be a bool"),
    (dict(softmax_scale=float("nan")), ValueError, "softmax_scale must be a finite number"),
    (dict(softmax_scale="0.1"), ValueError, "softmax_scale must be a finite number"),
    (dict(k=t(*GOOD["k"], device="meta")), ValueError, "q, k and v must be on one device, got q on cpu, k on meta"),
    (dict(), ValueError, "q, k and v must be CUDA tensors, got tensors on cpu"),
])
def test_bad_input_raises_a_clear_error(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        call(**kwargs)


def test_misaligned_strides_are_rejected():
    base = t(2, 16, 4, 68)[..., :64]  # rows of 68 elements: 136-byte rows, not 16-byte multiples
    with pytest.raises(ValueError, match="multiples of 8"):
        call(q=base)


@pytest.mark.parametrize("capability, arch", [((8, 0), "sm80"), ((8, 6), "sm80"), ((8, 7), "sm80"),
                                              ((8, 9), "sm89"), ((9, 0), "sm90a")])
def test_select_arch_maps_capability_to_library(capability, arch):
    assert flashcore.select_arch(capability) == arch


@pytest.mark.parametrize("capability", [(7, 5), (7, 0), (6, 1)])
def test_gpu_older_than_ampere_raises(capability):
    with pytest.raises(RuntimeError, match="no kernels for a GPU of compute capability %d.%d" % capability):
        flashcore.select_arch(capability)


# Blackwell (10.0 B200, 10.3, 12.0 RTX 50xx, 12.1), a hypothetical 9.1, and later ones: no SASS
# in this build, so the portable compute_80 PTX library, which the driver JIT-compiles.
@pytest.mark.parametrize("capability", [(9, 1), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1), (13, 0)])
def test_gpu_without_sass_gets_the_portable_ptx_library(capability):
    assert flashcore.select_arch(capability) == "sm80_ptx" == _attention.PTX_ARCH


def test_sass_is_preferred_and_ptx_fills_in_for_a_missing_sass_library():
    assert {flashcore.select_arch(c) for c in ((8, 0), (8, 6), (8, 9), (9, 0))} == {"sm80", "sm89", "sm90a"}
    assert flashcore.select_arch((9, 0), compiled_archs={"sm80", "sm89", "sm80_ptx"}) == "sm80_ptx"
    assert flashcore.select_arch((8, 9), compiled_archs={"sm80_ptx"}) == "sm80_ptx"
    with pytest.raises(RuntimeError, match=r"compiled archs: sm80, sm89;"):
        flashcore.select_arch((9, 0), compiled_archs={"sm80", "sm89"})
    with pytest.raises(RuntimeError, match=r"compiled archs: sm80_ptx;"):
        flashcore.select_arch((7, 5), compiled_archs={"sm80_ptx"})
    assert _attention._compiled_archs() == frozenset(ARCHS + PTX_ARCHS)


@pytest.fixture
def fake_gpus(monkeypatch):
    """Pretends the devices are the given {index: (name, capability)} (no GPU here); resets the
    per-device choice and the set of GPUs already warned about around the test."""
    gpus = {}
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda i=None: gpus[i][1])
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=None: gpus[i][0])
    monkeypatch.setattr(_attention, "_ptx_warned_gpus", set())
    _attention._device_arch.cache_clear()
    yield gpus
    _attention._device_arch.cache_clear()


def test_unknown_gpu_warns_once_naming_it_and_that_the_path_is_not_tuned(fake_gpus):
    import warnings
    fake_gpus.update({0: ("NVIDIA B200", (10, 0)), 1: ("NVIDIA B200", (10, 0)),
                      2: ("NVIDIA GeForce RTX 5090", (12, 0)), 3: ("NVIDIA H100 80GB HBM3", (9, 0))})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # the one-time rule must be flashcore's, not the filter's
        assert [_attention._device_arch(i) for i in (0, 0, 1, 2, 2, 3, 0)] == \
            ["sm80_ptx"] * 5 + ["sm90a", "sm80_ptx"]
        _attention._device_arch.cache_clear()  # even a fresh per-device choice does not warn again
        assert _attention._device_arch(1) == "sm80_ptx"
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2, messages  # one per GPU model; none for the H100 (SASS)
    assert all(w.category is RuntimeWarning for w in caught)
    b200, rtx = messages
    assert "NVIDIA B200 (compute capability 10.0)" in b200 and "not tuned" in b200 and "sm80_ptx" in b200
    assert "NVIDIA GeForce RTX 5090 (compute capability 12.0)" in rtx and "not tuned" in rtx


def test_known_gpu_does_not_warn(fake_gpus):
    import warnings
    fake_gpus.update({0: ("NVIDIA A100-SXM4-80GB", (8, 0)), 1: ("NVIDIA L4", (8, 9)), 2: ("NVIDIA H200", (9, 0))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [_attention._device_arch(i) for i in (0, 1, 2)] == ["sm80", "sm89", "sm90a"]


# --- autograd wiring, on meta tensors (the custom ops' fake impls; no GPU) ---------------------

def meta_qkv(sq=17, sk=33, d=128, dtype=torch.bfloat16):
    q = torch.empty(2, sq, 4, d, device="meta", dtype=dtype, requires_grad=True)
    k = torch.empty(2, sk, 4, d, device="meta", dtype=dtype, requires_grad=True)
    v = torch.empty(2, sk, 4, d, device="meta", dtype=dtype, requires_grad=True)
    return q, k, v


@pytest.mark.parametrize("deterministic", [False, True])
def test_backward_gives_grads_for_q_k_v(deterministic):
    q, k, v = meta_qkv()
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, True, 0.1, deterministic)
    assert out.requires_grad and out.grad_fn is not None
    (out.float().sum() + lse.sum()).backward()
    for t in (q, k, v):
        assert t.grad is not None and t.grad.shape == t.shape and t.grad.dtype == t.dtype


def test_forward_keeps_the_o_residual_for_the_backward_when_asked(monkeypatch):
    """save_residual=True (what flashcore.attention and attention_core pass when autograd records
    the call): the op returns O's residual (out's shape and dtype) and the backward op gets it."""
    calls = []
    real = torch.ops.flashcore.attention_bwd
    monkeypatch.setattr(torch.ops.flashcore, "attention_bwd", lambda *a: (calls.append(a), real(*a))[1])
    q, k, v = meta_qkv(sq=5, sk=9, d=64, dtype=torch.float16)
    out, lse, resid = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.25, False, -1, -1, 0.0, None, None,
                                                        None, None, 0, 0, True)
    assert resid.shape == out.shape and resid.dtype == out.dtype and not resid.requires_grad
    out.sum().backward()
    assert len(calls) == 1 and calls[0][-1] is not None and calls[0][-1].shape == out.shape
    # Without it the residual is empty and the backward gets None.
    _, _, empty = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.25, False)
    assert empty.numel() == 0


def test_residual_is_kept_where_rounded_o_would_dominate_the_gradients():
    """Rows that see at most 16 keys, or a sink: the O residual; long rows: FlashAttention's D."""
    def meta(*shape, grad=True):
        return torch.empty(*shape, device="meta", requires_grad=grad)
    q, k_long, k_short = meta(1, 4, 2, 64), meta(1, 4096, 2, 64), meta(1, 16, 2, 64)
    keep = _attention._keep_residual
    assert not keep(q, k_long, k_long, None, (-1, -1), False, None, 0)
    assert keep(q, k_short, k_short, None, (-1, -1), False, None, 0)
    assert keep(q, k_long, k_long, meta(2), (-1, -1), False, None, 0)  # a sink
    assert keep(q, k_long, k_long, None, (1, -1), True, None, 0)  # causal window: 2 keys per row
    assert not keep(q, k_long, k_long, None, (100, -1), True, None, 0)
    assert keep(q, k_long, k_long, None, (-1, -1), False, torch.zeros(2, device="meta"), 9)  # packed, 9 keys
    frozen = meta(1, 4, 2, 64, grad=False), meta(1, 16, 2, 64, grad=False)
    assert not keep(frozen[0], frozen[1], frozen[1], None, (-1, -1), False, None, 0)  # no backward


def test_a_sink_keeps_the_residual_only_where_the_backward_takes_its_gradient_from_d(monkeypatch):
    """The sm90a backward sums a sink's gradient from its fp32 P and dP: no residual for the sink
    there (rows of few keys still keep it). The mma.sync libraries, and sm90a's test-only mma.sync
    backward, take it from D = rowsum(dO * O): the residual."""
    q = types.SimpleNamespace(device=torch.device("cuda", 0))  # the rule reads only q's device
    k_long, k_short = torch.empty(1, 4096, 2, 64, device="meta"), torch.empty(1, 16, 2, 64, device="meta")
    sink = torch.empty(2, device="meta")
    for arch, mma_sync, want in (("sm90a", False, False), ("sm90a", True, True), ("sm80", False, True),
                                 ("sm89", False, True), ("sm80_ptx", False, True)):
        monkeypatch.setattr(_attention, "_arch_for", lambda index, arch=arch: arch)
        monkeypatch.setattr(_attention, "_SM90_BWD_MMA_SYNC", mma_sync)
        assert _attention._residual_wanted(q, k_long, sink, (-1, -1), True, None, 0) is want, arch
        assert _attention._residual_wanted(q, k_short, sink, (-1, -1), True, None, 0), arch
        assert not _attention._residual_wanted(q, k_long, None, (-1, -1), True, None, 0), arch
        # a causal window of 128 (gpt-oss's sliding layers): 129 keys a row
        assert _attention._residual_wanted(q, k_long, sink, (128, 0), True, None, 0) is want, arch


def test_wants_grad_follows_autograd():
    a = torch.empty(2, device="meta", requires_grad=True)
    b = torch.empty(2, device="meta")
    assert _attention._wants_grad(b, a, None)
    assert not _attention._wants_grad(b, None)
    with torch.no_grad():
        assert not _attention._wants_grad(a)


def test_backward_runs_the_bwd_custom_op_with_the_saved_tensors(monkeypatch):
    calls = []
    real = torch.ops.flashcore.attention_bwd

    class Spy:
        def __call__(self, *args):
            calls.append(args)
            return real(*args)

    monkeypatch.setattr(torch.ops.flashcore, "attention_bwd", Spy())
    q, k, v = meta_qkv(sq=5, sk=9, d=64, dtype=torch.float16)
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.25, True)
    out.sum().backward()
    assert len(calls) == 1
    dout, sq, sk, sv, sout, slse, dlse, causal, scale, deterministic = calls[0][:10]
    # Plain attention: every feature argument at its "off" value; no O residual was kept (this
    # direct op call did not ask for one: save_residual defaults to False).
    assert calls[0][10:] == (-1, -1, 0.0, None, None, None, None, 0, 0, None)
    assert dout.shape == out.shape
    assert (sq.shape, sk.shape, sv.shape, sout.shape, slse.shape) == (q.shape, k.shape, v.shape, out.shape, lse.shape)
    assert (causal, scale, deterministic) == (False, 0.25, True)
    assert dlse is None  # lse unused: no zero tensor made for its gradient
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, True, 0.25, False)
    lse.sum().backward()  # only lse used: dout is made zeros, dlse is passed
    dout, *_, dlse, causal, scale, deterministic = calls[1][:10]
    assert dout.shape == out.shape and dlse.shape == lse.shape and causal is True


def test_forward_saves_exactly_q_k_v_out_lse():
    saved = []

    def pack(t):
        saved.append(t)
        return t

    q, k, v = meta_qkv()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.1, False)
    # No extra copies: exactly the inputs and outputs themselves.
    assert len(saved) == 5
    assert all(s is x for s, x in zip(saved, (q, k, v, out, lse)))


def test_double_backward_raises_a_clear_error():
    q, k, v = meta_qkv(d=64)
    out = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.1, False)[0]
    (gq,) = torch.autograd.grad(out.float().sum(), q, create_graph=True)
    with pytest.raises(RuntimeError, match="does not support double backward"):
        gq.float().sum().backward()


def test_bwd_fake_impl_gives_shapes():
    q, k, v = (t.detach() for t in meta_qkv(sq=3, sk=70))
    out = torch.empty_like(q)
    lse = torch.empty(2, 4, 3, device="meta")
    dq, dk, dv, dsink = torch.ops.flashcore.attention_bwd(out, q, k, v, out, lse, None, True, 0.1, False)
    assert (dq.shape, dk.shape, dv.shape) == (q.shape, k.shape, v.shape)
    assert dsink.shape == (0,)  # no sink: an empty gradient
    assert dq.dtype == dk.dtype == dv.dtype == torch.bfloat16


def test_backward_ops_trace_into_one_graph_with_make_fx():
    from torch.fx.experimental.proxy_tensor import make_fx

    def step(q, k, v):
        out = torch.ops.flashcore.attention_fwd(q, k, v, True, 0.125, False)[0]
        return torch.autograd.grad(out.float().sum(), (q, k, v))

    q, k, v = meta_qkv(d=64)
    gm = make_fx(step)(q, k, v)
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert "flashcore.attention_fwd.default" in targets
    assert "flashcore.attention_bwd.default" in targets


def test_fake_impl_gives_shapes_without_a_gpu():
    q = torch.empty(2, 17, 4, 128, device="meta", dtype=torch.bfloat16)
    k = torch.empty(2, 33, 4, 128, device="meta", dtype=torch.bfloat16)
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, k, True, 0.1)
    assert out.shape == (2, 17, 4, 128) and out.dtype == torch.bfloat16
    assert lse.shape == (2, 4, 17) and lse.dtype == torch.float32


# --- the eager fast path's gate (the launch itself needs a GPU: gpu_attention_api_test) ------

class _Spy:
    """Stands in for _attention._direct: records that the fast path was tried."""

    def __init__(self):
        self.calls = 0

    def __call__(self, q, k, v, causal, softmax_scale, return_lse):
        self.calls += 1
        return ("direct-out", "direct-lse") if return_lse else "direct-out"


@pytest.fixture
def spy(monkeypatch):
    s = _Spy()
    monkeypatch.setattr(_attention, "_direct", s)
    return s


def test_plain_eager_call_takes_the_direct_path(spy):
    assert call() == "direct-out"
    assert call(return_lse=True) == ("direct-out", "direct-lse")
    q = t(*GOOD["q"]).requires_grad_(True)
    with torch.no_grad():  # grad mode off: autograd records nothing, so no need for the op
        assert call(q=q) == "direct-out"
    assert spy.calls == 3


def test_plain_flash_attn_calls_take_the_direct_path(spy):
    q, k, v = t(*GOOD["q"]), t(*GOOD["k"]), t(*GOOD["v"])
    assert flashcore.flash_attn_func(q, k, v) == "direct-out"
    assert flashcore.flash_attn_func(q, k, v, 0.0, None, True, (-1, -1), 0.0, None, True, True) == (
        "direct-out", "direct-lse", None)
    qkv = t(2, 16, 3, 4, 64)
    assert flashcore.flash_attn_qkvpacked_func(qkv, causal=True) == "direct-out"
    assert flashcore.flash_attn_kvpacked_func(q, t(2, 24, 2, 4, 64)) == "direct-out"
    assert spy.calls == 4


@pytest.mark.parametrize("kw", [dict(window_size=(8, 0)), dict(softcap=30.0), dict(dropout_p=0.1),
                                dict(alibi_slopes=torch.ones(4)), dict(window_size=[-1, -1]),
                                dict(deterministic=1), dict(return_attn_probs=None),
                                dict(learnable_sink=torch.zeros(4))], ids=str)
def test_flash_attn_calls_with_anything_else_take_the_checks(spy, kw):
    # Features, unsupported arguments and arguments of the wrong type never reach the direct path;
    # the checks then report (here: the first error each meets, on CPU tensors at the latest).
    with pytest.raises((ValueError, TypeError, NotImplementedError)):
        flashcore.flash_attn_func(t(*GOOD["q"]), t(*GOOD["k"]), t(*GOOD["v"]), **kw)
    assert spy.calls == 0


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_input_requiring_grad_goes_through_the_custom_op(spy, which):
    # The custom op (with its autograd registration) must see it; on CPU it then fails the device
    # check, which proves the op path ran the full checks.
    kw = {which: t(*GOOD[which]).requires_grad_(True)}
    with pytest.raises(ValueError, match="must be CUDA tensors"):
        call(**kw)
    assert spy.calls == 0


def test_fake_tensor_mode_goes_through_the_custom_op(spy):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(2, 17, 4, 64, device="meta", dtype=torch.float16)
        k = torch.empty(2, 33, 4, 64, device="meta", dtype=torch.float16)
        with pytest.raises(ValueError, match="must be CUDA tensors"):
            flashcore.attention(q, k, k)
    assert spy.calls == 0


def test_make_fx_traces_the_custom_op(spy, monkeypatch):
    from torch.fx.experimental.proxy_tensor import make_fx
    monkeypatch.setattr(_attention, "_check_inputs", lambda q, k, v, causal, scale: 0.125)
    q = torch.empty(2, 17, 4, 64, device="meta", dtype=torch.float16)
    gm = make_fx(lambda q, k, v: flashcore.attention(q, k, v), tracing_mode="fake")(q, q, q)
    assert "flashcore.attention_fwd" in gm.code
    assert spy.calls == 0


def test_torch_compile_traces_the_custom_op_not_the_direct_path(spy, monkeypatch):
    # CPU stand-ins for the CUDA-only parts; dynamo must fold is_compiling() to True (fullgraph:
    # anything it cannot trace fails) and record the custom op, never the direct path.
    launched = []
    monkeypatch.setattr(_attention, "_check_inputs", lambda q, k, v, causal, scale: 0.125)
    monkeypatch.setattr(_attention, "_launch", lambda q, k, v, out, lse, causal, scale, **features: launched.append(
        (out.zero_(), lse.zero_())))
    torch._dynamo.reset()
    try:
        f = torch.compile(lambda q, k, v: flashcore.attention(q, k, v) + 1, backend="aot_eager", fullgraph=True)
        q = t(*GOOD["q"])
        out = f(q, q, q)
    finally:
        torch._dynamo.reset()
    assert out.shape == q.shape and bool((out == 1).all())
    assert len(launched) == 1 and spy.calls == 0


def test_direct_path_declines_non_cuda_inputs_so_the_checks_report():
    # The real _direct on CPU tensors must hand back None (never launch), whatever the input.
    q, k, v = t(*GOOD["q"]), t(*GOOD["k"]), t(*GOOD["v"])
    assert _attention._direct(q, k, v, False, None, False) is None
    assert _attention._direct(q, k, v, 1, None, True) is None
    assert _attention._direct(q, k, v, False, float("inf"), False) is None


def test_forced_forward_tile_takes_the_tile_names_only():
    with pytest.raises(ValueError, match="forced forward tile must be one of"):
        _attention._set_forced_fwd_tile("tiny")
    for tile in ("default", "long_rows", "few_tiles", "short_rows", None):  # reaches the extension: no GPU needed
        _attention._set_forced_fwd_tile(tile)


def test_forced_arch_must_name_a_compiled_library():
    with pytest.raises(ValueError, match="FLASHCORE_FORCE_ARCH='sm75' names no compiled kernel library"):
        _attention._set_forced_arch("sm75")
    assert _attention._forced_arch is None


def test_forced_arch_applies_to_the_backward_too(monkeypatch, fake_gpus):
    # No GPU here: the extension is replaced by a recorder, the tensors are CPU ones (the backward
    # entry point only reads their pointers, shapes and strides), device 0 is a pretend H100.
    import types
    fake_gpus[0] = ("NVIDIA H100 80GB HBM3", (9, 0))
    assert "sm80_ptx" in _attention._compiled_archs()  # (cached from the real extension first)
    launched = []
    monkeypatch.setattr(_attention, "_C", types.SimpleNamespace(
        bwd=lambda device, arch, *rest: launched.append((device, arch)), bwd_block_m=64,
        kernel_head_dim=_attention._C.kernel_head_dim, dq_accum_cols=_attention._C.dq_accum_cols,
        dq_accum_floats=_attention._C.dq_accum_floats))
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: types.SimpleNamespace(cuda_stream=0))
    q, k, v, dout, out = (t(1, 64, 2, 64) for _ in range(5))
    lse = torch.zeros(1, 2, 64)

    def backward(deterministic):
        grads = [torch.empty_like(x) for x in (q, k, v)]
        _attention.attention_bwd_into(dout, q, k, v, out, lse, *grads, False, 0.125, deterministic)

    backward(False)
    try:
        _attention._set_forced_arch("sm80_ptx")
        backward(False)
        backward(True)
    finally:
        _attention._set_forced_arch(None)
    backward(True)
    assert launched == [(0, "sm90a"), (0, "sm80_ptx"), (0, "sm80_ptx"), (0, "sm90a")]


# --- the extension's own errors (no GPU here: a launch must fail with CUDA's error text) ------

def _fwd_args(**overrides):
    args = dict(device=0, arch="sm90a", dtype="fp16", q=0, k=0, v=0, o=0, lse=0, batch=1, heads=1,
                seqlen_q=1, seqlen_k=1, head_dim=64, q_strides=(64, 64, 64), k_strides=(64, 64, 64),
                v_strides=(64, 64, 64), o_strides=(64, 64, 64), softmax_scale=0.125, causal=False,
                stream=0)
    args.update(overrides)
    return args


def test_extension_rejects_unknown_arch_dtype_and_kernel():
    from flashcore import _C
    for bad in ("sm75", "sm89_ptx"):
        with pytest.raises(ValueError, match=r"arch must be one of sm80, sm89, sm90a, sm80_ptx \(portable PTX\), "
                                             r"got '%s'" % bad):
            _C.fwd(**_fwd_args(arch=bad))
    with pytest.raises(ValueError, match="dtype must be 'fp16' or 'bf16'"):
        _C.fwd(**_fwd_args(dtype="fp32"))
    with pytest.raises(ValueError, match="no forward kernel compiled for arch=sm90a dtype=bf16 head_dim=264"):
        _C.fwd(**_fwd_args(dtype="bf16", head_dim=264))
    with pytest.raises(ValueError, match="head_dim must be a positive multiple of 8, got 12"):
        _C.fwd(**_fwd_args(head_dim=12))


def _paged_features(cu_seqlens_k=0, seqused_k=4096, page_size=16, block_table=8192):
    # The 14-tuple of bindings/flashcore_ext.cc set_features: heads_kv, window left / right, softcap,
    # sink, cu_seqlens_q, cu_seqlens_k, seqused_k, total_q, total_k, then block_table, its row stride,
    # page_size, num_pages (pointers are never dereferenced: every case fails before device work).
    return (1, -1, -1, 0.0, 0, 0, cu_seqlens_k, seqused_k, 0, 0, block_table, 4, page_size, 10)


def test_extension_checks_the_paged_cache_features():
    from flashcore import _C
    with pytest.raises(ValueError, match="10- or 14-tuple"):
        _C.fwd(**_fwd_args(features=_paged_features()[:12]))
    with pytest.raises(ValueError, match="needs seqused_k and no cu_seqlens_k"):
        _C.fwd(**_fwd_args(features=_paged_features(seqused_k=0)))
    with pytest.raises(ValueError, match="needs seqused_k and no cu_seqlens_k"):
        _C.fwd(**_fwd_args(features=_paged_features(cu_seqlens_k=4096)))
    with pytest.raises(ValueError, match=r"page_size that is a multiple of 16 \(got 8\)"):
        _C.fwd(**_fwd_args(features=_paged_features(page_size=8)))
    with pytest.raises(ValueError, match="needs arch sm90a, got sm80"):
        _C.fwd(**_fwd_args(arch="sm80", features=_paged_features()))
    with pytest.raises(ValueError, match=r"paged KV cache \(block_table\) is forward-only"):
        _C.bwd(**_bwd_args(features=_paged_features()))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error path")
def test_cuda_errors_become_python_exceptions_with_cuda_text():
    from flashcore import _C
    with pytest.raises(RuntimeError, match=r"flashcore: forward kernel launch failed: cuda\w+: \w"):
        _C.fwd(**_fwd_args())
    with pytest.raises(RuntimeError, match=r"flashcore: backward kernel launch failed: cuda\w+: \w"):
        _C.bwd(**_bwd_args())


def _bwd_args(**overrides):
    strides = (64, 64, 64)
    args = dict(device=0, arch="sm90a", dtype="fp16", q=0, k=0, v=0, o=0, dout=0, lse=0, dlse=0, dq=0, dk=0,
                dv=0, dsum=0, dq_accum=0, dq_semaphore=0, dq_semaphore_count=0, batch=1, heads=1, seqlen_q=1,
                seqlen_k=1, head_dim=64, q_strides=strides, k_strides=strides, v_strides=strides,
                o_strides=strides, do_strides=strides, dq_strides=strides, dk_strides=strides,
                dv_strides=strides, softmax_scale=0.125, causal=False, deterministic=False, stream=0)
    args.update(overrides)
    return args


def test_extension_bwd_rejects_unknown_arch_dtype_and_kernel():
    from flashcore import _C
    assert _C.bwd_block_m == 64
    with pytest.raises(ValueError, match=r"arch must be one of sm80, sm89, sm90a, sm80_ptx \(portable PTX\), "
                                         r"got 'sm75'"):
        _C.bwd(**_bwd_args(arch="sm75"))
    # Every backward library has 256 (136..256 run on it), nothing above.
    with pytest.raises(ValueError, match="no backward kernel compiled for arch=sm80_ptx dtype=fp16 head_dim=264"):
        _C.bwd(**_bwd_args(arch="sm80_ptx", dtype="fp16", head_dim=264))
    with pytest.raises(ValueError, match="head_dim must be a positive multiple of 8, got 0"):
        _C.bwd(**_bwd_args(head_dim=0))
    with pytest.raises(ValueError, match="dtype must be 'fp16' or 'bf16'"):
        _C.bwd(**_bwd_args(dtype="fp32"))
    with pytest.raises(ValueError, match="no backward kernel compiled for arch=sm80 dtype=bf16 head_dim=264 causal"):
        _C.bwd(**_bwd_args(arch="sm80", dtype="bf16", head_dim=264, causal=True))
    # The packed tails are rows past cu_seqlens[-1]: a dense batch has none to zero.
    with pytest.raises(ValueError, match=r"zero_packed_tails needs a packed batch \(cu_seqlens_q in features\)"):
        _C.bwd(**_bwd_args(zero_packed_tails=True))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
