"""CPU suite for the features of issue 13 (no GPU): the FlashAttention-compatible signatures,
every validation error, the routing to attention_core, and the custom ops' fake implementations
(meta tensors, make_fx, torch.compile fullgraph). The float64 feature reference has
cpu_feature_reference_test.py, the transformers integration cpu_hf_registration_test.py."""

import inspect
import os
import sys

import pytest
import torch

import flashcore
from flashcore import _attention, _checks, api


def t(*shape, dtype=torch.float16, device="cpu"):
    return torch.randn(*shape).to(dtype=dtype, device=device)


def cu(*lengths, dtype=torch.int32):
    return torch.tensor([0] + list(torch.tensor(lengths).cumsum(0).tolist()), dtype=dtype)


# --- signatures: flash_attn 2.x names, order and defaults ------------------------------------

FA2_COMMON = [("dropout_p", 0.0), ("softmax_scale", None), ("causal", False), ("window_size", (-1, -1)),
              ("softcap", 0.0), ("alibi_slopes", None), ("deterministic", False), ("return_attn_probs", False)]


def _params(fn):
    return [(p.name, p.default if p.default is not inspect.Parameter.empty else "<required>", p.kind)
            for p in inspect.signature(fn).parameters.values()]


def _positional(names_defaults):
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return [(n, d, kind) for n, d in names_defaults]


KW = inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("fn, head, tail", [
    (flashcore.flash_attn_func, ["q", "k", "v"], [("learnable_sink", None, KW)]),
    (flashcore.flash_attn_qkvpacked_func, ["qkv"], []),
    (flashcore.flash_attn_kvpacked_func, ["q", "kv"], []),
])
def test_dense_signatures_are_flash_attn_2s(fn, head, tail):
    want = _positional([(n, "<required>") for n in head] + FA2_COMMON) + tail
    assert _params(fn) == want


def test_varlen_signature_is_flash_attn_2s_plus_seqused_k_and_sink():
    head = ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k"]
    want = _positional([(n, "<required>") for n in head] + FA2_COMMON + [("block_table", None)]) + \
        [("seqused_k", None, KW), ("learnable_sink", None, KW)]
    assert _params(flashcore.flash_attn_varlen_func) == want


def test_attention_gains_the_feature_keywords():
    params = inspect.signature(flashcore.attention).parameters
    assert params["window_size"].default == (-1, -1)
    assert params["softcap"].default == 0.0
    assert params["learnable_sink"].default is None
    assert all(params[n].kind is KW for n in ("window_size", "softcap", "learnable_sink"))


def test_exports():
    for name in ("flash_attn_func", "flash_attn_varlen_func", "flash_attn_qkvpacked_func", "flash_attn_kvpacked_func"):
        assert getattr(flashcore, name) is getattr(api, name)
        assert name in flashcore.__all__


def test_importing_flashcore_does_not_import_transformers():
    import subprocess
    code = "import sys, flashcore; import flashcore.api; print('transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# --- validation errors -----------------------------------------------------------------------

DENSE = dict(q=(2, 16, 8, 64), k=(2, 24, 2, 64), v=(2, 24, 2, 64))


def dense_call(q=None, k=None, v=None, **kw):
    q = t(*DENSE["q"]) if q is None else q
    k = t(*DENSE["k"]) if k is None else k
    v = t(*DENSE["v"]) if v is None else v
    return flashcore.flash_attn_func(q, k, v, **kw)


FN = "flashcore.flash_attn_func: "


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(q="x"), TypeError, FN + "q must be a torch.Tensor, got str"),
    (dict(q=t(16, 8, 64)), ValueError, FN + r"q must be 4-D \(batch, seqlen, heads, head_dim\)"),
    (dict(k=t(2, 24, 3, 64), v=t(2, 24, 3, 64)), ValueError,
     FN + r"q's heads \(8\) must be a multiple of k/v's heads \(3\)"),
    (dict(v=t(2, 24, 4, 64)), ValueError, FN + "k and v must have one shape up to head_dim"),
    (dict(v=t(2, 23, 2, 64)), ValueError, FN + "k and v must have one shape up to head_dim"),
    (dict(k=t(3, 24, 2, 64)), ValueError, FN + "k has batch 3 but q has batch 2"),
    (dict(k=t(2, 24, 2, 128), v=t(2, 24, 2, 128)), ValueError, FN + "k has head_dim 128 but q has 64"),
    (dict(q=t(2, 16, 8, 264), k=t(2, 24, 2, 264), v=t(2, 24, 2, 264)), ValueError,
     FN + r"head_dim must be a multiple of 8 from 8 to 256, got 264 \(head dims above 256 have no kernels\)"),
    (dict(q=t(2, 16, 8, 20), k=t(2, 24, 2, 20), v=t(2, 24, 2, 20)), ValueError,
     FN + "head_dim must be a multiple of 8 from 8 to 256, got 20$"),
    # v's own head dim (q/k 192, v 128 in DeepSeek's MLA): any multiple of 8 up to 256; a pair
    # passes every shape check and meets the device check last.
    (dict(v=t(2, 24, 2, 264)), ValueError,
     FN + r"v's head_dim must be a multiple of 8 from 8 to 256, got 264 \(head dims above 256 have no kernels\)"),
    (dict(v=t(2, 24, 2, 20)), ValueError, FN + "v's head_dim must be a multiple of 8 from 8 to 256, got 20$"),
    (dict(v=t(2, 24, 2, 128)), ValueError, FN + "q, k and v must be CUDA tensors"),
    (dict(q=t(2, 16, 8, 192), k=t(2, 24, 2, 192), v=t(2, 24, 2, 128)), ValueError,
     FN + "q, k and v must be CUDA tensors"),
    (dict(q=t(*DENSE["q"], dtype=torch.float32)), TypeError, FN + "q must be float16 or bfloat16"),
    (dict(k=t(*DENSE["k"], dtype=torch.bfloat16), v=t(*DENSE["v"], dtype=torch.bfloat16)), TypeError,
     FN + "q, k and v must have one dtype"),
    (dict(q=t(2, 16, 8, 64, 2)[..., 0]), ValueError, FN + r"q must be contiguous in its last \(head_dim\)"),
    (dict(q=t(2, 16, 8, 68)[..., :64]), ValueError, FN + "q's strides .* must be multiples of 8"),
    (dict(k=t(2, 0, 2, 64), v=t(2, 0, 2, 64)), ValueError, FN + "k is empty"),
    (dict(window_size=(-2, 0)), ValueError, FN + r"window_size's left must be >= -1 \(-1: unbounded\), got -2"),
    (dict(window_size=(4, -3)), ValueError, FN + "window_size's right must be >= -1"),
    (dict(window_size=(4.0, 0)), TypeError, FN + "window_size's left must be an int, got 4.0"),
    (dict(window_size=4), TypeError, FN + r"window_size must be a pair \(left, right\) of ints, got 4"),
    (dict(window_size=(1, 2, 3)), TypeError, FN + "window_size must be a pair"),
    (dict(softcap=-1.0), ValueError, FN + r"softcap must be >= 0 \(0.0 disables it\), got -1.0"),
    (dict(softcap=float("inf")), TypeError, FN + "softcap must be a finite float"),
    (dict(softcap="30"), TypeError, FN + "softcap must be a finite float"),
    (dict(softmax_scale=float("nan")), ValueError, FN + "softmax_scale must be a finite number or None"),
    (dict(causal=1), TypeError, FN + "causal must be a bool, got int"),
    (dict(deterministic=None), TypeError, FN + "deterministic must be a bool, got NoneType"),
    (dict(return_attn_probs="yes"), TypeError, FN + "return_attn_probs must be a bool"),
    (dict(learnable_sink=t(7, dtype=torch.float32)), ValueError,
     FN + r"learnable_sink must have shape \(heads,\) = \(8,\) \(one logit per query head\), got \(7,\)"),
    (dict(learnable_sink=t(1, 8, dtype=torch.float32)), ValueError, FN + "learnable_sink must have shape"),
    (dict(learnable_sink=torch.zeros(8, dtype=torch.int32)), TypeError,
     FN + "learnable_sink must be a floating-point tensor, got torch.int32"),
    (dict(learnable_sink=[0.0] * 8), TypeError, FN + "learnable_sink must be a torch.Tensor or None, got list"),
    (dict(learnable_sink=torch.zeros(8, device="meta")), ValueError, FN + "learnable_sink must be on q's device"),
    (dict(dropout_p=0.1), NotImplementedError, FN + r"dropout \(dropout_p=0.1\) is not implemented"),
    (dict(dropout_p=1.5), ValueError, FN + r"dropout_p must be a number in \[0, 1\]"),
    (dict(alibi_slopes=torch.zeros(8)), NotImplementedError, FN + r"ALiBi \(alibi_slopes\) is not implemented"),
    (dict(k=t(*DENSE["k"], device="meta")), ValueError, FN + "q, k and v must be on one device"),
    (dict(), ValueError, FN + "q, k and v must be CUDA tensors, got tensors on cpu"),
])
def test_dense_bad_input_raises_a_clear_error(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        dense_call(**kwargs)


def test_unsupported_features_are_reported_before_anything_else():
    # dropout / ALiBi are named even when the tensors are fine otherwise (never silently ignored)
    with pytest.raises(NotImplementedError, match="dropout"):
        flashcore.flash_attn_varlen_func(*varlen_args(), dropout_p=0.5)
    with pytest.raises(NotImplementedError, match="ALiBi"):
        flashcore.flash_attn_qkvpacked_func(t(1, 8, 3, 2, 64), alibi_slopes=torch.zeros(2))
    with pytest.raises(NotImplementedError, match="ALiBi"):
        flashcore.flash_attn_kvpacked_func(t(1, 8, 2, 64), t(1, 8, 2, 2, 64), alibi_slopes=torch.zeros(2))


def test_packed_layouts_are_checked():
    with pytest.raises(ValueError, match=r"flash_attn_qkvpacked_func: qkv must be 5-D \(batch, seqlen, 3, heads"):
        flashcore.flash_attn_qkvpacked_func(t(1, 8, 2, 2, 64))
    with pytest.raises(TypeError, match="flash_attn_qkvpacked_func: qkv must be a torch.Tensor"):
        flashcore.flash_attn_qkvpacked_func(None)
    with pytest.raises(ValueError, match=r"flash_attn_kvpacked_func: kv must be 5-D \(batch, seqlen_k, 2, heads_kv"):
        flashcore.flash_attn_kvpacked_func(t(1, 8, 2, 64), t(1, 8, 3, 2, 64))
    with pytest.raises(ValueError, match="flash_attn_kvpacked_func: q's heads \\(2\\) must be a multiple of k/v's heads \\(4\\)"):
        flashcore.flash_attn_kvpacked_func(t(1, 8, 2, 64), t(1, 8, 2, 4, 64))
    # valid packed inputs reach the device check (views of one tensor are accepted as they are)
    with pytest.raises(ValueError, match="must be CUDA tensors"):
        flashcore.flash_attn_qkvpacked_func(t(1, 8, 3, 2, 64))
    with pytest.raises(ValueError, match="must be CUDA tensors"):
        flashcore.flash_attn_kvpacked_func(t(1, 8, 4, 64), t(1, 8, 2, 2, 64))


def varlen_args(lengths_q=(5, 0, 7), lengths_k=(6, 3, 9), heads=4, heads_kv=2, d=64, pad=3):
    total_q, total_k = sum(lengths_q) + pad, sum(lengths_k) + pad
    return (t(total_q, heads, d), t(total_k, heads_kv, d), t(total_k, heads_kv, d), cu(*lengths_q), cu(*lengths_k),
            max(lengths_q), max(lengths_k))


VFN = "flashcore.flash_attn_varlen_func: "


def _replace(args, **kw):
    names = ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k"]
    args = dict(zip(names, args))
    extra = {n: kw.pop(n) for n in list(kw) if n not in names}
    args.update(kw)
    return [args[n] for n in names], extra


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(q=t(2, 12, 4, 64)), ValueError, VFN + r"q must be 3-D \(total_tokens, heads, head_dim\)"),
    (dict(cu_seqlens_q=cu(5, 0, 7, dtype=torch.int64)), TypeError, VFN + "cu_seqlens_q must be an int32 tensor, got torch.int64"),
    (dict(cu_seqlens_k=cu(6, 3, 9).float()), TypeError, VFN + "cu_seqlens_k must be an int32 tensor"),
    (dict(cu_seqlens_q=[0, 5, 5, 12]), TypeError, VFN + "cu_seqlens_q must be a torch.Tensor, got list"),
    (dict(cu_seqlens_q=cu(5, 0, 7)[None]), ValueError, VFN + "cu_seqlens_q must be 1-D"),
    (dict(cu_seqlens_q=torch.zeros(1, dtype=torch.int32)), ValueError, VFN + "cu_seqlens_q must have batch \\+ 1 >= 2 entries"),
    (dict(cu_seqlens_k=cu(6, 3)), ValueError, VFN + "cu_seqlens_k must have 4 entries, got 3"),
    (dict(cu_seqlens_k=torch.stack([cu(6, 3, 9), cu(6, 3, 9)], 1)[:, 0]), ValueError, VFN + "cu_seqlens_k must be contiguous"),
    (dict(cu_seqlens_k=cu(6, 3, 9).to("meta")), ValueError,
     VFN + "cu_seqlens_k must be on q's device"),
    (dict(seqused_k=torch.tensor([1, 2], dtype=torch.int32)), ValueError, VFN + "seqused_k must have 3 entries, got 2"),
    (dict(seqused_k=torch.tensor([1, 2, 3])), TypeError, VFN + "seqused_k must be an int32 tensor"),
    (dict(max_seqlen_q=7.0), TypeError, VFN + r"max_seqlen_q must be a Python int \(or a one-element integer tensor "
                                              r"in eager mode\), got float"),
    (dict(max_seqlen_k=torch.tensor(9.0)), TypeError, VFN + "max_seqlen_k must be a Python int .* got Tensor"),
    (dict(max_seqlen_k=torch.tensor([9, 9])), TypeError, VFN + "max_seqlen_k must be a Python int .* got Tensor"),
    (dict(max_seqlen_k=torch.tensor(0)), ValueError, VFN + "max_seqlen_k must be >= 1, got 0"),
    (dict(max_seqlen_q=True), TypeError, VFN + "max_seqlen_q must be a Python int"),
    (dict(max_seqlen_k=0), ValueError, VFN + "max_seqlen_k must be >= 1, got 0"),
    (dict(k=t(20, 3, 64), v=t(20, 3, 64)), ValueError, VFN + r"q's heads \(4\) must be a multiple of k/v's heads \(3\)"),
    (dict(window_size=(-5, -1)), ValueError, VFN + "window_size's left must be >= -1"),
    (dict(softcap=-0.5), ValueError, VFN + "softcap must be >= 0"),
    (dict(learnable_sink=torch.zeros(2)), ValueError, VFN + r"learnable_sink must have shape \(heads,\) = \(4,\)"),
    (dict(alibi_slopes=torch.zeros(4)), NotImplementedError, VFN + "ALiBi"),
    (dict(), ValueError, VFN + "q, k and v must be CUDA tensors"),
])
def test_varlen_bad_input_raises_a_clear_error(kwargs, exc, message):
    args, extra = _replace(varlen_args(), **kwargs)
    with pytest.raises(exc, match=message):
        flashcore.flash_attn_varlen_func(*args, **extra)


# The value checks read cu_seqlens on the host; they run in eager mode (here on CPU tensors,
# called directly since the public functions stop at the CUDA check first).
@pytest.mark.parametrize("cu_q, cu_k, max_q, max_k, seqused, message", [
    ([1, 5, 5, 12], [0, 6, 9, 18], 7, 9, None, "cu_seqlens_q must start at 0, got 1"),
    ([0, 5, 4, 12], [0, 6, 9, 18], 8, 9, None, r"cu_seqlens_q must be non-decreasing, got 5 then 4 at entries 1, 2"),
    ([0, 5, 5, 12], [0, 6, 9, 8], 7, 9, None, "cu_seqlens_k must be non-decreasing, got 9 then 8"),
    ([0, 5, 5, 16], [0, 6, 9, 18], 11, 9, None, r"cu_seqlens_q\[-1\] = 16 exceeds the 15 rows of q"),
    ([0, 5, 5, 12], [0, 6, 9, 22], 7, 13, None, r"cu_seqlens_k\[-1\] = 22 exceeds the 21 rows of k"),
    ([0, 5, 5, 12], [0, 6, 9, 18], 6, 9, None, r"max_seqlen_q = 6 is less than the longest sequence in cu_seqlens_q \(7\)"),
    ([0, 5, 5, 12], [0, 6, 9, 18], 7, 8, None, "max_seqlen_k = 8 is less than the longest sequence in cu_seqlens_k"),
    ([0, 5, 5, 12], [0, 6, 9, 18], 7, 9, [3, -1, 2], "seqused_k must be >= 0, got -1 for sequence 1"),
])
def test_varlen_value_checks(cu_q, cu_k, max_q, max_k, seqused, message):
    q, k = t(15, 4, 64), t(21, 2, 64)
    i32 = lambda x: None if x is None else torch.tensor(x, dtype=torch.int32)  # noqa: E731
    with pytest.raises(ValueError, match="f: " + message):
        _checks.check_lengths_on_device("f", q, k, i32(cu_q), i32(cu_k), max_q, max_k, i32(seqused))


def test_varlen_value_checks_pass_on_good_lengths_and_allow_seqused_beyond_length():
    q, k = t(15, 4, 64), t(21, 2, 64)
    # seqused_k larger than a sequence's length is clamped by the kernels (min), so it is allowed
    assert _checks.check_lengths_on_device("f", q, k, cu(5, 0, 7), cu(6, 3, 9), 7, 9,
                                           torch.tensor([6, 100, 0], dtype=torch.int32)) is True


def test_varlen_value_checks_run_once_per_tensors_and_again_after_a_change():
    # A model passes the same cu_seqlens to every layer: the host read (a GPU sync) is done once.
    q, k = t(15, 4, 64), t(21, 2, 64)
    cu_q, cu_k = cu(5, 0, 7), cu(6, 3, 9)
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    cu_q.numpy()[1] = 9  # a write torch does not see (no version bump): the cached verdict stands
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    with pytest.raises(ValueError, match="cu_seqlens_q must be non-decreasing"):  # other sizes: checked again
        _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 8, 9, None)
    cu_q[1] = 5  # an in-place change torch sees: checked again
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    cu_q[2] = 4
    with pytest.raises(ValueError, match="cu_seqlens_q must be non-decreasing"):
        _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None)
    with pytest.raises(ValueError, match="cu_seqlens_k must be non-decreasing"):  # another cu_seqlens_k
        _checks.check_lengths_on_device("f", q, k, cu(5, 0, 7), torch.tensor([0, 6, 9, 8], dtype=torch.int32), 7, 9,
                                        None)


def test_varlen_value_checks_again_when_seqused_k_comes_or_goes():
    # The same cu_seqlens checked without seqused_k, then with one (the sanitizer sweep's order),
    # then without again: each set is checked on its own; a bad seqused_k is caught, not skipped.
    q, k = t(15, 4, 64), t(21, 2, 64)
    cu_q, cu_k = cu(5, 0, 7), cu(6, 3, 9)
    used = torch.tensor([6, 3, 9], dtype=torch.int32)
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, used) is True
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, used) == (12, 18)
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, None) is None  # the entry is seqused_k's now
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    with pytest.raises(ValueError, match="seqused_k must be >= 0, got -2 for sequence 2"):
        _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, torch.tensor([6, 3, -2], dtype=torch.int32))


def test_packed_ends_come_only_from_a_check_of_the_same_tensors_and_sizes():
    # The backward zeroes only the gradient rows past these ends when they are known (_backward.py).
    q, k = t(15, 4, 64), t(21, 2, 64)
    cu_q, cu_k = cu(5, 0, 7), cu(6, 3, 9)
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, None) is None  # never checked
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, None) == (12, 18)
    assert _checks.packed_ends(q, k, cu_q, cu_k, 8, 9, None) is None  # other sizes
    cu_k[3] = 17  # an in-place change torch sees
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, None) is None
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    assert _checks.packed_ends(q, k, cu_q, cu_k, 7, 9, None) == (12, 17)


def test_gradient_buffers_leave_the_packed_tails_to_the_kernels_when_the_ends_are_unknown():
    """The backward's dq / dk / dv (_backward._gradient_buffers): rows past cu_seqlens[-1] are zeroed
    on the host where a front-end check read the ends, else by the kernels (zero_packed_tails),
    never by zeroing whole tensors -- but with seqused_k, whose cut keys lie inside sequences."""
    from flashcore import _backward
    q, k, v = t(15, 4, 64), t(21, 2, 64), t(21, 2, 64)
    cu_q, cu_k = cu(5, 0, 7), cu(6, 3, 9)
    *_, tails = _backward._gradient_buffers(q, k, v, cu_q, cu_k, None, 7, 9)  # never checked
    assert tails is True
    assert _checks.check_lengths_on_device("f", q, k, cu_q, cu_k, 7, 9, None) is True
    dq, dk, dv, tails = _backward._gradient_buffers(q, k, v, cu_q, cu_k, None, 7, 9)
    assert tails is False and (dq[12:] == 0).all() and (dk[18:] == 0).all() and (dv[18:] == 0).all()
    used = torch.tensor([6, 3, 9], dtype=torch.int32)
    dq, dk, dv, tails = _backward._gradient_buffers(q, k, v, cu_q, cu_k, used, 7, 9)
    assert tails is False and all((g == 0).all() for g in (dq, dk, dv))
    *_, tails = _backward._gradient_buffers(t(2, 7, 4, 64), t(2, 9, 2, 64), t(2, 9, 2, 64), None, None, None, 0, 0)
    assert tails is False  # dense: no tails


def test_varlen_value_checks_are_skipped_where_no_host_read_is_possible():
    from torch._subclasses.fake_tensor import FakeTensorMode
    bad = torch.tensor([3, 1, 0], dtype=torch.int32)  # would fail every value check
    with FakeTensorMode() as mode:
        q, k = torch.empty(15, 4, 64, dtype=torch.float16), torch.empty(21, 2, 64, dtype=torch.float16)
        fake_bad = mode.from_tensor(bad)
        assert not _checks.device_reads_allowed(q, fake_bad)
        assert _checks.check_lengths_on_device("f", q, k, fake_bad, fake_bad, 1, 1, None) is False
    meta = bad.to("meta")
    assert _checks.check_lengths_on_device("f", t(15, 4, 64).to("meta"), t(21, 2, 64).to("meta"), meta, meta,
                                           1, 1, None) is False
    assert _checks.device_reads_allowed(bad)


def test_block_table_without_a_kv_cache_module_is_not_implemented(monkeypatch):
    monkeypatch.setattr(api, "_paged_kernel", lambda: None)
    args = varlen_args()
    with pytest.raises(NotImplementedError, match=VFN + r"block_table \(a paged KV cache\) is not implemented"):
        flashcore.flash_attn_varlen_func(*args, block_table=torch.zeros(3, 2, dtype=torch.int32),
                                         seqused_k=torch.zeros(3, dtype=torch.int32))


def test_block_table_routes_to_the_kv_cache_module_when_present(monkeypatch):
    calls = []

    def fake_paged(q, k_cache, v_cache, block_table, seqused_k, cu_seqlens_q, max_seqlen_q, out, lse=None, **kw):
        calls.append((block_table, seqused_k, cu_seqlens_q, max_seqlen_q, lse, kw))
        out.fill_(1.0)
        if lse is not None:
            lse.fill_(2.0)

    monkeypatch.setattr(api, "_paged_kernel", lambda: fake_paged)
    q = t(12, 4, 64)
    caches = t(5, 16, 2, 64), t(5, 16, 2, 64)
    table, used = torch.zeros(3, 2, dtype=torch.int32), torch.tensor([3, 0, 20], dtype=torch.int32)
    with pytest.raises(ValueError, match=VFN + "q, k and v must be CUDA tensors"):
        flashcore.flash_attn_varlen_func(q, *caches, cu(5, 0, 7), None, 7, 32, block_table=table, seqused_k=used)
    monkeypatch.setattr(_checks, "check_device", lambda fn, q: None)  # CPU stand-in from here on
    caches = t(5, 16, 2, 64), t(5, 16, 2, 64)
    table, used = torch.zeros(3, 2, dtype=torch.int32), torch.tensor([3, 0, 20], dtype=torch.int32)
    with pytest.raises(ValueError, match="seqused_k .* is required with block_table"):
        flashcore.flash_attn_varlen_func(q, *caches, cu(5, 0, 7), None, 7, 32, block_table=table)
    with pytest.raises(NotImplementedError, match="learnable_sink with block_table"):
        flashcore.flash_attn_varlen_func(q, *caches, cu(5, 0, 7), None, 7, 32, block_table=table, seqused_k=used,
                                         learnable_sink=torch.zeros(4))
    out, lse, none = flashcore.flash_attn_varlen_func(q, *caches, cu(5, 0, 7), None, 7, 32, causal=True,
                                                      window_size=(8, 0), softcap=5.0, block_table=table,
                                                      seqused_k=used, return_attn_probs=True)
    assert none is None and (out == 1).all() and lse.shape == (4, 12) and (lse == 2).all()
    (bt, su, cq, mq, _, kw), = calls
    assert bt is table and su is used and mq == 7
    assert kw == dict(softmax_scale=0.125, causal=True, window_size=(8, 0), softcap=5.0)
    with pytest.raises(NotImplementedError, match="forward-only"):
        flashcore.flash_attn_varlen_func(q.requires_grad_(True), *caches, cu(5, 0, 7), None, 7, 32,
                                         block_table=table, seqused_k=used)


# --- routing: what reaches attention_core (CPU stand-in for the device check) ----------------

@pytest.fixture
def core(monkeypatch):
    """Records attention_core's calls and returns zero tensors of the right shapes."""
    calls = []

    def fake_core(q, k, v, **kw):
        calls.append(dict(kw, q=q, k=k, v=v))
        lse_shape = (q.shape[1], q.shape[0]) if kw.get("cu_seqlens_q") is not None else \
            (q.shape[0], q.shape[2], q.shape[1])
        return q.new_zeros(q.shape[:-1] + (v.shape[-1],)), torch.zeros(lse_shape)

    monkeypatch.setattr(api, "attention_core", fake_core)
    monkeypatch.setattr(_checks, "check_device", lambda fn, q: None)
    return calls


def test_flash_attn_func_passes_every_feature_to_attention_core(core):
    q, k, v = t(*DENSE["q"]), t(*DENSE["k"]), t(*DENSE["v"])
    sink = torch.zeros(8, dtype=torch.bfloat16)
    out = flashcore.flash_attn_func(q, k, v, causal=True, window_size=[128, 0], softcap=30, deterministic=True,
                                    learnable_sink=sink)
    assert out.shape == q.shape
    (c,) = core
    assert c["q"] is q and c["k"] is k and c["v"] is v and c["sink"] is sink
    assert (c["softmax_scale"], c["causal"], c["window_size"], c["softcap"], c["deterministic"]) == \
        (0.125, True, (128, 0), 30.0, True)
    assert type(c["softcap"]) is float and type(c["window_size"]) is tuple


def test_return_attn_probs_gives_out_lse_none(core):
    q, k, v = t(*DENSE["q"]), t(*DENSE["k"]), t(*DENSE["v"])
    out, lse, probs = flashcore.flash_attn_func(q, k, v, return_attn_probs=True)
    assert probs is None and out.shape == q.shape and lse.shape == (2, 8, 16)
    out, lse, probs = flashcore.flash_attn_varlen_func(*varlen_args(), return_attn_probs=True)
    assert probs is None and lse.shape == (4, 15)


def test_varlen_passes_lengths_and_host_maxima(core):
    args = varlen_args()
    used = torch.tensor([5, 3, 9], dtype=torch.int32)
    flashcore.flash_attn_varlen_func(*args, softmax_scale=0.5, seqused_k=used)
    # one-element integer tensors (as transformers passes from position_ids) become host ints
    flashcore.flash_attn_varlen_func(*args[:5], torch.tensor(7), torch.tensor([9], dtype=torch.int32))
    c, c2 = core
    assert c["cu_seqlens_q"] is args[3] and c["cu_seqlens_k"] is args[4] and c["seqused_k"] is used
    assert (c["max_seqlen_q"], c["max_seqlen_k"], c["softmax_scale"]) == (7, 9, 0.5)
    assert (c2["max_seqlen_q"], c2["max_seqlen_k"]) == (7, 9) and type(c2["max_seqlen_q"]) is int
    assert (c["window_size"], c["softcap"], c["sink"], c["causal"]) == ((-1, -1), 0.0, None, False)


def test_varlen_runs_the_value_checks_in_eager_mode(core):
    args, _ = _replace(varlen_args(), cu_seqlens_q=torch.tensor([0, 5, 3, 12], dtype=torch.int32))
    with pytest.raises(ValueError, match="cu_seqlens_q must be non-decreasing"):
        flashcore.flash_attn_varlen_func(*args)


def test_packed_functions_pass_views_of_the_packed_tensor(core):
    qkv = t(2, 16, 3, 4, 64)
    flashcore.flash_attn_qkvpacked_func(qkv, causal=True)
    q = t(2, 16, 8, 64)
    kv = t(2, 20, 2, 2, 64)
    flashcore.flash_attn_kvpacked_func(q, kv, window_size=(3, 3))
    a, b = core
    for i, name in enumerate("qkv"):
        assert a[name].data_ptr() == qkv[:, :, i].data_ptr() and a[name].stride() == qkv[:, :, i].stride()
    assert b["k"].data_ptr() == kv[:, :, 0].data_ptr() and b["v"].data_ptr() == kv[:, :, 1].data_ptr()
    assert b["window_size"] == (3, 3) and a["causal"] is True


class _DirectSpy:
    def __init__(self):
        self.calls = 0

    def __call__(self, q, k, v, causal, softmax_scale, return_lse):
        self.calls += 1
        # as the real one: declines k/v with other head counts than q (GQA goes the feature way)
        # and a v shaped unlike k (v's own head dim)
        return "direct-out" if k.shape[2] == q.shape[2] and v.shape == k.shape else None


@pytest.mark.parametrize("kwargs", [dict(window_size=(16, 0)), dict(softcap=10.0),
                                    dict(learnable_sink=torch.zeros(8)), dict(gqa=True), dict(v_head_dim=128)])
def test_attention_routes_feature_calls_to_attention_core_and_plain_calls_direct(core, monkeypatch, kwargs):
    spy = _DirectSpy()
    monkeypatch.setattr(_attention, "_direct", spy)
    q = t(2, 16, 8, 64)
    kv_heads = 2 if kwargs.pop("gqa", False) else 8
    dv = kwargs.pop("v_head_dim", 64)
    k, v = t(2, 24, kv_heads, 64), t(2, 24, kv_heads, dv)
    out, lse = flashcore.attention(q, k, v, causal=True, return_lse=True, **kwargs)
    # window/softcap/sink never reach the direct path; GQA and v's own head dim are declined by it
    # (one call)
    assert len(core) == 1 and spy.calls == (1 if kv_heads != 8 or dv != 64 else 0)
    assert out.shape == (2, 16, 8, dv) and lse.shape == (2, 8, 16)
    calls = spy.calls
    assert flashcore.attention(q, t(2, 24, 8, 64), t(2, 24, 8, 64)) == "direct-out"  # plain: untouched
    assert spy.calls == calls + 1 and len(core) == 1


def test_attention_feature_errors_name_flashcore_attention():
    with pytest.raises(ValueError, match=r"flashcore.attention: q's heads \(8\) must be a multiple of k/v's heads \(3\)"):
        flashcore.attention(t(2, 16, 8, 64), t(2, 24, 3, 64), t(2, 24, 3, 64))
    with pytest.raises(ValueError, match="flashcore.attention: window_size's left must be >= -1"):
        flashcore.attention(t(2, 16, 8, 64), t(2, 24, 8, 64), t(2, 24, 8, 64), window_size=(-2, 0))
    with pytest.raises(ValueError, match="flashcore.attention: softcap must be >= 0"):
        flashcore.attention(t(2, 16, 8, 64), t(2, 24, 8, 64), t(2, 24, 8, 64), softcap=-3.0)


# --- fake implementations: shapes on meta tensors, make_fx, torch.compile fullgraph ----------

def test_fwd_fake_impl_with_features_gives_shapes():
    q = torch.empty(2, 17, 8, 128, device="meta", dtype=torch.bfloat16)
    k = torch.empty(2, 33, 2, 128, device="meta", dtype=torch.bfloat16)
    sink = torch.empty(8, device="meta")
    out, lse, _ = torch.ops.flashcore.attention_fwd(q, k, k, True, 0.1, False, 16, 0, 30.0, sink)
    assert out.shape == q.shape and lse.shape == (2, 8, 17) and lse.dtype == torch.float32
    qp = torch.empty(40, 8, 64, device="meta", dtype=torch.float16)
    kp = torch.empty(50, 1, 64, device="meta", dtype=torch.float16)
    c = torch.empty(4, device="meta", dtype=torch.int32)
    out, lse, _ = torch.ops.flashcore.attention_fwd(qp, kp, kp, False, 0.1, False, -1, -1, 0.0, None, c, c, None, 20, 30)
    assert out.shape == qp.shape and lse.shape == (8, 40)


def test_bwd_fake_impl_gives_the_sink_gradient_shape():
    q = torch.empty(40, 8, 64, device="meta", dtype=torch.float16)
    k = torch.empty(50, 2, 64, device="meta", dtype=torch.float16)
    c = torch.empty(4, device="meta", dtype=torch.int32)
    sink = torch.empty(8, device="meta")
    dq, dk, dv, dsink = torch.ops.flashcore.attention_bwd(q, q, k, k, q, torch.empty(8, 40, device="meta"), None,
                                                          True, 0.1, True, 5, 0, 0.0, sink, c, c, None, 20, 30)
    assert (dq.shape, dk.shape, dv.shape, dsink.shape) == (q.shape, k.shape, k.shape, (8,))
    assert dsink.dtype == torch.float32


def test_autograd_on_meta_reaches_q_k_v_and_the_sink():
    from flashcore._attention import attention_core
    q = torch.empty(2, 17, 8, 64, device="meta", dtype=torch.bfloat16, requires_grad=True)
    k = torch.empty(2, 33, 2, 64, device="meta", dtype=torch.bfloat16, requires_grad=True)
    v = torch.empty(2, 33, 2, 64, device="meta", dtype=torch.bfloat16, requires_grad=True)
    sink = torch.empty(8, device="meta", dtype=torch.bfloat16, requires_grad=True)
    out, lse = attention_core(q, k, v, softmax_scale=0.1, causal=True, window_size=(8, 0), softcap=5.0, sink=sink)
    (out.float().sum() + lse.sum()).backward()
    for x in (q, k, v, sink):
        assert x.grad is not None and x.grad.shape == x.shape and x.grad.dtype == x.dtype


def _no_device_checks(monkeypatch):
    """CPU stand-ins: the device check passes and the kernel launches write zeros."""
    monkeypatch.setattr(_checks, "check_device", lambda fn, q: None)
    monkeypatch.setattr(_attention, "_launch", lambda q, k, v, out, lse, causal, scale, **f: (out.zero_(), lse.zero_()))


def test_make_fx_traces_varlen_forward_and_backward_into_the_custom_ops(monkeypatch):
    from torch.fx.experimental.proxy_tensor import make_fx
    _no_device_checks(monkeypatch)

    def step(q, k, v, sink, cq, ck):
        out = flashcore.flash_attn_varlen_func(q, k, v, cq, ck, 7, 9, causal=True, window_size=(4, 0),
                                               learnable_sink=sink)
        return torch.autograd.grad(out.float().sum(), (q, k, v, sink))

    q, k, v = t(15, 4, 64).requires_grad_(True), t(21, 2, 64).requires_grad_(True), t(21, 2, 64).requires_grad_(True)
    sink = torch.zeros(4, requires_grad=True)
    gm = make_fx(step, tracing_mode="fake")(q, k, v, sink, cu(5, 0, 7), cu(6, 3, 9))
    targets = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    assert "flashcore.attention_fwd.default" in targets and "flashcore.attention_bwd.default" in targets


@pytest.mark.parametrize("which", ["dense", "varlen"])
def test_torch_compile_fullgraph_traces_the_api(monkeypatch, which):
    _no_device_checks(monkeypatch)
    reads = []
    real_read = _checks.check_lengths_on_device
    monkeypatch.setattr(_checks, "check_lengths_on_device", lambda *a: reads.append(real_read(*a)))
    cq, ck = cu(5, 0, 7), cu(6, 3, 9)
    if which == "dense":
        def f(q, k, v, sink):
            return flashcore.flash_attn_func(q, k, v, causal=True, window_size=(8, 0), softcap=20.0,
                                             learnable_sink=sink) + 1
        q, k, v = t(2, 16, 8, 64), t(2, 24, 2, 64), t(2, 24, 2, 64)
    else:
        def f(q, k, v, sink):
            return flashcore.flash_attn_varlen_func(q, k, v, cq, ck, 7, 9, causal=True, learnable_sink=sink) + 1
        q, k, v = t(15, 8, 64), t(21, 2, 64), t(21, 2, 64)
    torch._dynamo.reset()
    try:
        out = torch.compile(f, backend="aot_eager", fullgraph=True)(q, k, v, torch.zeros(8))
    finally:
        torch._dynamo.reset()
    assert out.shape == q.shape and bool((out == 1).all())
    assert all(r is False for r in reads)  # compiled: the host read is skipped, never traced


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
