"""GPU suite of flashcore.attention's API and runtime behaviour (instantiated per GPU kind by
tests/gpu.bzl as gpu_<kind>_api): the public entry point against the float64 reference and itself
(lse, repeat runs, the current stream), the direct eager path against the custom op, autograd
recording, torch.compile, CUDA graph capture, CUDA errors as Python exceptions, the build's
kernels for this GPU, and compute-sanitizer on a small case. Apart from the accuracy oracle
(tests/gpu_attention_test.py), which runs the kernels over many shapes, head dims and tiles: these
check what happens around the kernels. Inputs and the error measure: tests/fwd_oracle.py.
"""

import os
import sys
import textwrap

import pytest
import torch

import flashcore
from flashcore import _attention
from flashcore.reference import attention_reference
from fwd_oracle import fresh_inputs, rel_err
from sanitizer_check import run_sanitizer
from gpu_suite_env import check_expected_gpu


def test_public_api_returns_lse_and_fills_gpu():
    q, k, v = fresh_inputs(4, 16, 333, 333, 128, torch.bfloat16, 1234)
    out, lse = flashcore.attention(q, k, v, causal=True, return_lse=True)
    ref_out, ref_lse = attention_reference(q, k, v, causal=True)
    assert out.shape == q.shape and out.dtype == q.dtype
    assert lse.shape == (4, 16, 333) and lse.dtype == torch.float32
    assert torch.allclose(lse.double(), ref_lse, atol=1e-3)
    assert rel_err(out, ref_out) < 1e-2
    assert torch.equal(flashcore.attention(q, k, v, causal=True), out)  # deterministic


def test_repeat_runs_are_bitwise_identical():
    q, k, v = fresh_inputs(2, 8, 1000, 1000, 64, torch.float16, 7)
    first = flashcore.attention(q, k, v)
    for _ in range(3):
        assert torch.equal(flashcore.attention(q, k, v), first)


def test_runs_on_current_stream():
    q, k, v = fresh_inputs(2, 4, 256, 256, 64, torch.float16, 11)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        out = flashcore.attention(q, k, v)
    s.synchronize()
    assert rel_err(out, attention_reference(q, k, v)[0]) < 5e-3


@pytest.fixture
def direct_taken(monkeypatch):
    """Wraps _attention._direct: the list gets True for each call it launched, False for each it
    declined."""
    taken = []
    real = _attention._direct

    def spy(*args):
        res = real(*args)
        taken.append(res is not None)
        return res

    monkeypatch.setattr(_attention, "_direct", spy)
    return taken


def test_direct_path_is_taken_and_matches_the_custom_op(direct_taken):
    taken = direct_taken
    qkv = torch.randn(2, 200, 3, 4, 64, device="cuda", dtype=torch.bfloat16)
    cases = [fresh_inputs(2, 4, 130, 260, 128, torch.float16, 17), qkv.unbind(2)]
    for q, k, v in cases:
        for causal, scale in ((False, None), (True, 0.3)):
            out, lse = flashcore.attention(q, k, v, causal=causal, softmax_scale=scale, return_lse=True)
            want_out, want_lse, _ = torch.ops.flashcore.attention_fwd(
                q, k, v, causal, scale if scale is not None else q.shape[-1] ** -0.5)
            assert out.is_contiguous() and out.shape == q.shape and lse.shape == want_lse.shape
            assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
            # without return_lse the kernel gets a null lse and must leave it alone
            alone = flashcore.attention(q, k, v, causal=causal, softmax_scale=scale)
            torch.cuda.synchronize()
            assert torch.equal(alone, want_out)
    assert taken == [True] * 8


def test_flash_attn_func_direct_path_matches_the_custom_op(direct_taken):
    taken = direct_taken
    q, k, v = fresh_inputs(2, 4, 130, 260, 64, torch.bfloat16, 23)
    for causal in (False, True):
        out, lse, none = flashcore.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True)
        want_out, want_lse, _ = torch.ops.flashcore.attention_fwd(q, k, v, causal, q.shape[-1] ** -0.5)
        assert none is None and torch.equal(out, want_out) and torch.equal(lse, want_lse)
        assert torch.equal(flashcore.flash_attn_func(q, k, v, causal=causal), want_out)
    assert taken == [True] * 4
    q.requires_grad_(True)  # autograd must record it: the custom op, not the direct path
    out = flashcore.flash_attn_func(q, k, v)
    assert out.grad_fn is not None and taken == [True] * 4


def test_input_requiring_grad_is_recorded_by_autograd():
    q, k, v = fresh_inputs(1, 2, 64, 64, 64, torch.float16, 3)
    v.requires_grad_(True)
    out = flashcore.attention(q, k, v)
    assert out.requires_grad and out.grad_fn is not None
    with torch.no_grad():
        assert not flashcore.attention(q, k, v).requires_grad


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_traces_the_custom_op(backend):
    q, k, v = fresh_inputs(2, 4, 128, 128, 64, torch.bfloat16, 5)

    def f(q, k, v):
        return flashcore.attention(q, k, v, causal=True) * 2

    compiled = torch.compile(f, fullgraph=True, backend=backend)
    assert torch.equal(compiled(q, k, v), f(q, k, v))


def test_cuda_graph_capture_and_replay():
    q, k, v = fresh_inputs(2, 4, 200, 300, 128, torch.float16, 13)
    static_out = flashcore.attention(q, k, v, causal=True)  # warm-up outside capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = flashcore.attention(q, k, v, causal=True)
    for seed in (21, 22):
        new = fresh_inputs(2, 4, 200, 300, 128, torch.float16, seed)
        for dst, src in zip((q, k, v), new):
            dst.copy_(src)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out, flashcore.attention(q, k, v, causal=True))


def test_cuda_errors_become_python_exceptions():
    from flashcore import _C
    q, k, v = fresh_inputs(1, 1, 64, 64, 64, torch.float16, 9)
    out = torch.empty_like(q)
    lse = torch.empty(1, 1, 64, device="cuda")
    bad_device = torch.cuda.device_count() + 3
    with pytest.raises(RuntimeError, match="forward kernel launch failed: cudaErrorInvalidDevice"):
        _C.fwd(bad_device, flashcore.select_arch(torch.cuda.get_device_capability()), "fp16",
               q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr(),
               1, 1, 64, 64, 64, q.stride()[:3], k.stride()[:3], v.stride()[:3], out.stride()[:3],
               0.125, False, torch.cuda.current_stream().cuda_stream)


def test_build_covers_this_gpu():
    info = flashcore.build_info()
    arch = flashcore.select_arch(torch.cuda.get_device_capability())
    for dtype in ("fp16", "bf16"):
        for d in (64, 128):
            for causal in (False, True):
                assert {"arch": arch, "dtype": dtype, "head_dim": d, "causal": causal} in info["kernels"]


SANITIZER_CASE = textwrap.dedent("""
    import torch, flashcore
    for dtype in (torch.float16, torch.bfloat16):
        # and head dims run on them (predicated; 72 and 200 on the 96 and 256 kernels' narrow
        # mainloops, as the (192, 128) pair on the 192 kernel's: kernels/hopper/tile_policy.h)
        for d, dv in ((64, 64), (128, 128), (8, 8), (40, 40), (72, 72), (120, 120), (200, 200), (192, 128)):
            for causal in (False, True):
                q = torch.randn(1, 67, 2, d, device="cuda", dtype=dtype)
                k = torch.randn(1, 131, 2, d, device="cuda", dtype=dtype)
                v = torch.randn(1, 131, 2, dv, device="cuda", dtype=dtype)
                flashcore.attention(q, k, v, causal=causal)
                if d == dv:
                    flashcore.attention(k, q[:, :67], q[:, :67], causal=causal)
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_compute_sanitizer_small_case(tool, tmp_path):
    # "fwd_kernel" matches both forward mainloops: flash_fwd_kernel (sm80 family) and
    # hopper::fwd_kernel (sm90a: TMA, mbarriers, wgmma), whichever this GPU runs.
    run_sanitizer(tool, SANITIZER_CASE, "fwd_kernel", tmp_path)


if __name__ == "__main__":
    check_expected_gpu()
    sys.exit(pytest.main([__file__, "-q", "-rs", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
