"""CPU suite: the extension imports and describes itself, every bad input gets a clear error,
the float64 reference agrees with torch's math SDPA, and the custom op traces without a GPU."""

import math
import os
import sys

import pytest
import torch
import torch.nn.functional as F

import flashcore
import venv_info
from flashcore import _attention
from flashcore.reference import attention_reference, causal_mask

ARCHS = ("sm80", "sm89", "sm90a")


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
    want = {(a, t, d, c) for a in ARCHS for t in ("fp16", "bf16") for d in (64, 128) for c in (False, True)}
    assert got == want
    assert len(info["kernels"]) == len(want)  # registered once each
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
    (dict(q=t(2, 16, 4, 96), k=t(2, 24, 4, 96), v=t(2, 24, 4, 96)), ValueError, r"head_dim must be one of \(64, 128\), got 96"),
    (dict(q=t(2, 16, 4, 128)[..., ::2]), ValueError, "q has head_dim 64|q must be contiguous in its last"),
    (dict(q=t(2, 16, 4, 64, 2)[..., 0]), ValueError, r"q must be contiguous in its last \(head_dim\) dimension"),
    (dict(q=t(2, 0, 4, 64)), ValueError, "q is empty"),
    (dict(k=t(2, 0, 4, 64), v=t(2, 0, 4, 64)), ValueError, "k is empty"),
    (dict(q=t(1, 1, 65536, 64), k=t(1, 1, 65536, 64), v=t(1, 1, 65536, 64)), ValueError, "heads must each be <= 65535"),
    (dict(causal=1), TypeError, "causal must be a bool"),
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


@pytest.mark.parametrize("capability", [(7, 5), (10, 0), (12, 0), (9, 1)])
def test_uncovered_gpu_arch_raises(capability):
    with pytest.raises(RuntimeError, match="no kernels for a GPU of compute capability %d.%d" % capability):
        flashcore.select_arch(capability)


def test_arch_missing_from_build_raises():
    with pytest.raises(RuntimeError, match=r"compiled archs: sm80"):
        flashcore.select_arch((9, 0), compiled_archs={"sm80"})


def test_backward_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="no backward"):
        _attention._backward(None, None, None)


def test_fake_impl_gives_shapes_without_a_gpu():
    q = torch.empty(2, 17, 4, 128, device="meta", dtype=torch.bfloat16)
    k = torch.empty(2, 33, 4, 128, device="meta", dtype=torch.bfloat16)
    out, lse = torch.ops.flashcore.attention_fwd(q, k, k, True, 0.1)
    assert out.shape == (2, 17, 4, 128) and out.dtype == torch.bfloat16
    assert lse.shape == (2, 4, 17) and lse.dtype == torch.float32


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
    with pytest.raises(ValueError, match="arch must be one of sm80, sm89, sm90a, got 'sm75'"):
        _C.fwd(**_fwd_args(arch="sm75"))
    with pytest.raises(ValueError, match="dtype must be 'fp16' or 'bf16'"):
        _C.fwd(**_fwd_args(dtype="fp32"))
    with pytest.raises(ValueError, match="no forward kernel compiled for arch=sm90a dtype=bf16 head_dim=96"):
        _C.fwd(**_fwd_args(dtype="bf16", head_dim=96))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error path")
def test_cuda_errors_become_python_exceptions_with_cuda_text():
    from flashcore import _C
    with pytest.raises(RuntimeError, match=r"flashcore: forward kernel launch failed: cuda\w+: \w"):
        _C.fwd(**_fwd_args())


# --- the float64 reference itself, against torch's math SDPA (float64, CPU) ----------------

@pytest.mark.parametrize("sq, sk", [(1, 1), (17, 17), (5, 40), (40, 5), (129, 64)])
@pytest.mark.parametrize("causal", [False, True])
def test_reference_matches_torch_math_sdpa(sq, sk, causal):
    g = torch.Generator().manual_seed(sq * 1000 + sk)
    q = torch.randn(2, sq, 3, 64, generator=g, dtype=torch.float64)
    k = torch.randn(2, sk, 3, 64, generator=g, dtype=torch.float64)
    v = torch.randn(2, sk, 3, 64, generator=g, dtype=torch.float64)
    out, lse = attention_reference(q, k, v, causal=causal, softmax_scale=0.2)
    mask = causal_mask(sq, sk) if causal else None
    want = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                          attn_mask=mask, scale=0.2).transpose(1, 2)
    seen = lse.isfinite().transpose(1, 2)  # (b, sq, h)
    assert torch.allclose(out[seen], want[seen], atol=1e-12, rtol=1e-12)
    assert (out[~seen] == 0).all()
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * 0.2
    if causal:
        scores = scores.masked_fill(~mask, float("-inf"))
    assert torch.allclose(lse, torch.logsumexp(scores, -1), atol=1e-12)


def test_causal_mask_is_bottom_right_aligned():
    m = causal_mask(2, 4)
    assert m.tolist() == [[True, True, True, False], [True, True, True, True]]
    m = causal_mask(4, 2)
    assert m.tolist() == [[False, False], [False, False], [True, False], [True, True]]


def test_reference_rows_that_see_no_key():
    q = torch.randn(1, 4, 1, 64, dtype=torch.float64)
    k = torch.randn(1, 2, 1, 64, dtype=torch.float64)
    out, lse = attention_reference(q, k, k, causal=True)
    assert torch.isinf(lse[0, 0, :2]).all() and (lse[0, 0, :2] < 0).all()
    assert (out[0, :2] == 0).all() and torch.isfinite(out).all()
    assert math.isfinite(lse[0, 0, 2].item())


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
