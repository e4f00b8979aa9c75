"""Inputs at the edges, for the forward and backward of every run-time feature (issue 12 item 2):
NaN/inf in q/k/v, tensors past 2^31 elements, batch x heads past 65,535.

- NaN/inf: a non-finite value stays where the math puts it. A NaN or inf in query row i of head
  h: out and dq are non-finite in that row alone and bit-identical to the clean run everywhere
  else (deterministic mode, so the backward's reduction order is fixed); dk/dv may be non-finite
  only for the keys of that sequence and kv head (which of them is the kernel's business: 0 x NaN
  in a product is NaN), and are bit-identical elsewhere; a sink's gradient only for head h. A NaN
  in key j of kv head g: the query rows of that sequence in the heads of group g may be
  non-finite, at least one is, and every other row is bit-identical.
- 2^31 elements: q (and out, dq) past 2^31 elements (element offsets past int32), cheap through
  a sliding window or short packed sequences; the rows past the 2^31st element are checked
  against the float64 reference on a slice that holds everything they depend on.
- batch x heads past 65,535 (a CUDA grid's y/z limit): every (batch, head) written, the last
  ones checked against the float64 reference.

Instantiated per GPU kind as //tests:gpu_<kind>_edge (tests/BUILD.bazel).
"""

import itertools
import os
import sys

import pytest
import torch

import flashcore
from flashcore.reference import features_reference
from gpu_suite_env import check_expected_gpu
from oracle_constants import UNIT_ROUNDOFF as UNIT


def randn(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, generator=g, device="cuda", dtype=torch.float32).to(dtype)


# Each feature as flashcore.flash_attn_func / flash_attn_varlen_func keywords, on small shapes:
# (name, heads, heads_kv, causal, window, softcap, sink, varlen)
FEATURES = {
    "gqa": dict(heads=4, heads_kv=2),
    "window": dict(window=(20, 5)),
    "causal_window": dict(causal=True, window=(30, 0)),
    "softcap": dict(softcap=5.0),
    "sink": dict(sink=True),
    "varlen": dict(varlen=True),
    "all": dict(heads=4, heads_kv=1, causal=True, window=(40, 0), softcap=30.0, sink=True, varlen=True),
}
LENS_Q, LENS_K = [70, 1, 150], [90, 33, 150]  # packed sequences (varlen)
DENSE = (2, 150, 170)  # batch, seqlen_q, seqlen_k


class Call:
    """One feature's inputs and its deterministic forward + backward through the public API."""

    def __init__(self, feature, head_dim=64, dtype=torch.bfloat16, seed=1):
        f = dict(heads=2, heads_kv=2, causal=False, window=(-1, -1), softcap=0.0, sink=False, varlen=False)
        f.update(FEATURES[feature])
        self.f, self.dtype = f, dtype
        h, hk = f["heads"], f["heads_kv"]
        if f["varlen"]:
            self.cu_q = torch.tensor([0, *itertools.accumulate(LENS_Q)], dtype=torch.int32, device="cuda")
            self.cu_k = torch.tensor([0, *itertools.accumulate(LENS_K)], dtype=torch.int32, device="cuda")
            qs, ks = (sum(LENS_Q), h, head_dim), (sum(LENS_K), hk, head_dim)
        else:
            b, sq, sk = DENSE
            qs, ks = (b, sq, h, head_dim), (b, sk, hk, head_dim)
        self.q, self.k, self.v, self.dout = (randn(*s, dtype=dtype, seed=seed + i) for i, s in
                                             enumerate((qs, ks, ks, qs)))
        self.sink = randn(h, seed=seed + 9, dtype=torch.float32) if f["sink"] else None

    def run(self, q=None, k=None, v=None):
        """(out, dq, dk, dv, dsink) of sum(out * dout), deterministic."""
        leaves = [t.detach().clone().requires_grad_(True) for t in (q if q is not None else self.q,
                                                                    k if k is not None else self.k,
                                                                    v if v is not None else self.v)]
        sink = self.sink.detach().clone().requires_grad_(True) if self.sink is not None else None
        kw = dict(causal=self.f["causal"], window_size=self.f["window"], softcap=self.f["softcap"],
                  learnable_sink=sink, deterministic=True)
        if self.f["varlen"]:
            out = flashcore.flash_attn_varlen_func(*leaves, self.cu_q, self.cu_k, max(LENS_Q), max(LENS_K), **kw)
        else:
            out = flashcore.flash_attn_func(*leaves, **kw)
        grads = torch.autograd.grad(out, leaves + ([sink] if sink is not None else []), self.dout)
        torch.cuda.synchronize()
        return (out.detach(),) + tuple(grads) + ((None,) if sink is None else ())

    # Index helpers: a query row / key row of sequence `s` (packed: row of the packed tensor).
    def q_index(self, s, i, h):
        return (int(self.cu_q[s]) + i, h) if self.f["varlen"] else (s, i, h)

    def k_index(self, s, j, g):
        return (int(self.cu_k[s]) + j, g) if self.f["varlen"] else (s, j, g)

    def rows_of_sequence(self, t, s, kind):
        """A bool mask over t's leading (row[, head]) dims selecting sequence s's rows."""
        m = torch.zeros(t.shape[:-1], dtype=torch.bool, device="cuda")
        if self.f["varlen"]:
            cu = self.cu_q if kind == "q" else self.cu_k
            m[int(cu[s]):int(cu[s + 1])] = True
        else:
            m[s] = True
        return m


def head_mask(t, heads):
    m = torch.zeros(t.shape[:-1], dtype=torch.bool, device="cuda")
    m[..., heads] = True
    return m


def assert_same_outside(name, got, clean, allowed):
    """got is bit-identical to clean wherever `allowed` (over the leading dims) is False."""
    keep = ~allowed
    a, b = got[keep], clean[keep]
    assert torch.isfinite(a).all(), "%s: a non-finite value leaked outside its rows" % name
    assert torch.equal(a, b), "%s: rows outside the poisoned ones changed (max diff %.3g)" % (
        name, (a.float() - b.float()).abs().max().item())


@pytest.mark.parametrize("bad", ["nan", "inf"])
@pytest.mark.parametrize("feature", list(FEATURES))
def test_nonfinite_query_row_stays_in_its_row(feature, bad):
    call = Call(feature)
    clean = call.run()
    s = 2 if call.f["varlen"] else 1  # the last sequence
    i, h = 37, call.f["heads"] - 1
    g = h // (call.f["heads"] // call.f["heads_kv"])
    q = call.q.clone()
    q[call.q_index(s, i, h)][5] = float(bad)
    out, dq, dk, dv, dsink = call.run(q=q)
    row = torch.zeros(out.shape[:-1], dtype=torch.bool, device="cuda")
    row[call.q_index(s, i, h)] = True
    # The math: a NaN makes every score of the row NaN; an inf makes them +-inf (softmax: inf - inf
    # = NaN), unless a softcap maps them to +-softcap (then the row is finite).
    math_finite = bad == "inf" and call.f["softcap"] > 0
    assert bool(torch.isfinite(out[row]).all()) == math_finite, \
        "the poisoned row's out is %s; the math's is not" % ("finite" if not math_finite else "non-finite")
    assert_same_outside("out", out, clean[0], row)
    assert_same_outside("dq", dq, clean[1], row)
    kv_rows = call.rows_of_sequence(dk, s, "k") & head_mask(dk, g)
    assert_same_outside("dk", dk, clean[2], kv_rows)
    assert_same_outside("dv", dv, clean[3], kv_rows)
    if dsink is not None:
        others = torch.ones_like(dsink, dtype=torch.bool)
        others[h] = False
        assert torch.equal(dsink[others], clean[4][others]), "dsink of other heads changed"


# Keys 10 (even) and 11 (odd): a NaN key in either column parity of a key block must reach only
# the rows that see it. Keys 42 and 43: n8 column group 5 of a key block, one whose exponentials
# the bf16 d64 bounded-softcap step takes on the FMA pipe (exp2_poly, every 3rd group:
# kernels/hopper/tile_policy.h fwd_bounded_exp2_poly_every), which must keep a NaN.
@pytest.mark.parametrize("j", [10, 11, 42, 43], ids=["key10", "key11", "key42", "key43"])
@pytest.mark.parametrize("feature", list(FEATURES))
def test_nan_key_reaches_only_rows_of_its_sequence_and_group(feature, j):
    call = Call(feature)
    clean = call.run()
    s = 0
    g = 0
    group = call.f["heads"] // call.f["heads_kv"]
    k = call.k.clone()
    k[call.k_index(s, j, g)][3] = float("nan")
    out, dq, dk, dv, dsink = call.run(k=k)
    q_heads = list(range(g * group, (g + 1) * group))
    allowed_q = call.rows_of_sequence(out, s, "q") & head_mask(out, q_heads)
    assert not torch.isfinite(out[allowed_q]).all(), "no row saw the NaN key: it was dropped"
    assert_same_outside("out", out, clean[0], allowed_q)
    assert_same_outside("dq", dq, clean[1], allowed_q)
    allowed_k = call.rows_of_sequence(dk, s, "k") & head_mask(dk, g)
    assert_same_outside("dk", dk, clean[2], allowed_k)
    assert_same_outside("dv", dv, clean[3], allowed_k)
    if dsink is not None:
        others = torch.ones_like(dsink, dtype=torch.bool)
        others[q_heads] = False
        assert torch.equal(dsink[others], clean[4][others]), "dsink of other groups changed"


def check_close(name, ours, ref64, lowp):
    """FlashAttention's rule against the float64 reference (2x the same math in the dtype)."""
    assert torch.isfinite(ours).all(), "%s: not finite" % name
    norm = ref64.double().norm().item()
    err = (ours.double() - ref64.double()).norm().item() / norm
    low = (lowp.double() - ref64.double()).norm().item() / norm
    assert err <= 2 * max(low, UNIT[ours.dtype] if ours.dtype in UNIT else 1e-6), \
        "%s: rel err %.3g > 2 x %.3g (same math in the dtype)" % (name, err, low)


def references(q, k, v, dout, sink=None, **kw):
    return (features_reference(q, k, v, dout=dout, sink=sink, **kw),
            features_reference(q, k, v, dout=dout, sink=sink, compute_dtype=q.dtype, **kw))


def grads_of(out_fn, leaves, dout):
    out = out_fn(*leaves)
    grads = torch.autograd.grad(out, leaves, dout)
    torch.cuda.synchronize()
    return out.detach(), grads


def test_dense_window_gqa_softcap_sink_past_2_31_elements():
    """q (1, S, 8, 128) bf16 with S * 8 * 128 > 2^31, k/v 2 heads, causal window 128: the last
    512 rows (all past the 2^31st element of q) and the keys they see, against float64 on a slice."""
    heads, heads_kv, d, w, tail = 8, 2, 128, 128, 512
    s = 2**31 // (heads * d) + 1000
    assert s * heads * d > 2**31
    q = randn(1, s, heads, d, seed=11)
    k, v = randn(1, s, heads_kv, d, seed=12), randn(1, s, heads_kv, d, seed=13)
    sink = randn(heads, seed=14, dtype=torch.float32)
    dout = torch.zeros_like(q)
    dout[:, s - tail:] = randn(1, tail, heads, d, seed=15)  # only the tail rows carry a gradient
    kw = dict(causal=True, window_size=(w, 0), softcap=30.0)
    leaves = [t.requires_grad_(True) for t in (q, k, v, sink.clone())]
    out, (dq, dk, dv, dsink) = grads_of(
        lambda q_, k_, v_, s_: flashcore.flash_attn_func(q_, k_, v_, learnable_sink=s_, **kw), leaves, dout)
    lo = s - tail - w  # everything the tail rows depend on, and every key they reach
    sl = slice(lo, s)
    ref, low = references(q[:, sl].detach(), k[:, sl].detach(), v[:, sl].detach(), dout[:, sl], sink=sink, **kw)
    check_close("out (tail)", out[:, s - tail:], ref.out[:, w:], low.out[:, w:])
    check_close("dq (tail)", dq[:, s - tail:], ref.dq[:, w:], low.dq[:, w:])
    check_close("dk (slice)", dk[:, sl], ref.dk, low.dk)
    check_close("dv (slice)", dv[:, sl], ref.dv, low.dv)
    assert dk[:, :lo].abs().max().item() == 0 and dv[:, :lo].abs().max().item() == 0, \
        "keys no tail row sees got a gradient"
    # The sink's gradient: only the tail rows carry one (the rest have dout = 0).
    check_close("dsink", dsink, ref.dsink, low.dsink)


def test_varlen_gqa_past_2_31_elements():
    """Packed q (total, 8, 128), total * 8 * 128 > 2^31, in 512-row sequences, k/v 1 head: the
    first and the last sequence (past the 2^31st element) against float64."""
    heads, heads_kv, d, n = 8, 1, 128, 512
    count = 2**31 // (n * heads * d) + 2
    total = count * n
    assert total * heads * d > 2**31
    cu = torch.arange(0, total + 1, n, dtype=torch.int32, device="cuda")
    q = randn(total, heads, d, seed=21)
    k, v = randn(total, heads_kv, d, seed=22), randn(total, heads_kv, d, seed=23)
    dout = randn(total, heads, d, seed=24)
    leaves = [t.requires_grad_(True) for t in (q, k, v)]
    out, (dq, dk, dv) = grads_of(
        lambda q_, k_, v_: flashcore.flash_attn_varlen_func(q_, k_, v_, cu, cu, n, n, causal=True), leaves, dout)
    for first in (0, total - n):
        rows = slice(first, first + n)
        ref, low = references(q[rows].detach().unsqueeze(0), k[rows].detach().unsqueeze(0),
                              v[rows].detach().unsqueeze(0), dout[rows].unsqueeze(0), causal=True)
        for name, ours, r, lw in (("out", out, ref.out, low.out), ("dq", dq, ref.dq, low.dq),
                                  ("dk", dk, ref.dk, low.dk), ("dv", dv, ref.dv, low.dv)):
            check_close("%s rows %d.." % (name, first), ours[rows], r[0], lw[0])


@pytest.mark.parametrize("varlen", [False, True], ids=["dense", "varlen"])
def test_batch_times_heads_past_65535(varlen):
    """1,100 sequences x 64 query heads (8 kv heads) = 70,400 (batch, head) pairs, window, softcap
    and a sink: the last two sequences against float64, and no output left unwritten."""
    batch, heads, heads_kv, d, sq = 1100, 64, 8, 64, 40
    assert batch * heads > 65535
    kw = dict(causal=True, window_size=(16, 0), softcap=20.0)
    sink = randn(heads, seed=31, dtype=torch.float32)
    if varlen:
        cu = torch.arange(0, batch * sq + 1, sq, dtype=torch.int32, device="cuda")
        shape_q, shape_k = (batch * sq, heads, d), (batch * sq, heads_kv, d)
    else:
        shape_q, shape_k = (batch, sq, heads, d), (batch, sq, heads_kv, d)
    q, dout = randn(*shape_q, seed=32), randn(*shape_q, seed=33)
    k, v = randn(*shape_k, seed=34), randn(*shape_k, seed=35)
    leaves = [t.requires_grad_(True) for t in (q, k, v, sink.clone())]
    if varlen:
        fn = lambda q_, k_, v_, s_: flashcore.flash_attn_varlen_func(q_, k_, v_, cu, cu, sq, sq,  # noqa: E731
                                                                      learnable_sink=s_, **kw)
    else:
        fn = lambda q_, k_, v_, s_: flashcore.flash_attn_func(q_, k_, v_, learnable_sink=s_, **kw)  # noqa: E731
    out, (dq, dk, dv, dsink) = grads_of(fn, leaves, dout)
    for name, t in (("out", out), ("dq", dq), ("dk", dk), ("dv", dv), ("dsink", dsink)):
        assert torch.isfinite(t).all(), "%s: non-finite values (unwritten or computed)" % name
    last = slice((batch - 2) * sq, batch * sq) if varlen else slice(batch - 2, batch)

    def view(t):  # the last two sequences as a dense batch
        return t[last].reshape(2, sq, *t.shape[-2:]) if varlen else t[last]

    ref, low = references(view(q.detach()), view(k.detach()), view(v.detach()), view(dout), sink=sink, **kw)
    for name, ours, r, lw in (("out", out, ref.out, low.out), ("dq", dq, ref.dq, low.dq),
                              ("dk", dk, ref.dk, low.dk), ("dv", dv, ref.dv, low.dv)):
        check_close(name + " (last sequences)", view(ours), r, lw)


# --- window sides past the sequences, up to INT32_MAX --------------------------------------------
# FlashAttention's window (left, right) means the same for every side at least as wide as the
# sequences; the kernels add the sides to 32-bit row positions, so 2^31 - 1 must reach them cut to
# that width (flashcore._checks.clamp_window), not overflow and hide every key.

BIG = 2**31 - 1


@pytest.mark.parametrize("arch", ["sm90a", "sm80_ptx"])
@pytest.mark.parametrize("window, causal", [((BIG, BIG), False), ((BIG, 0), True), ((BIG, 7), False),
                                            ((9, BIG), False)])
@pytest.mark.parametrize("varlen", [False, True], ids=["dense", "varlen"])
def test_window_sides_up_to_int32_max_mean_the_whole_sequence(arch, window, causal, varlen):
    from flashcore import _attention
    if arch != "sm90a" and arch not in _attention._compiled_archs():
        pytest.skip("%s is not in this build" % arch)
    if arch == "sm90a" and torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("sm90a needs a 9.0 device")
    sq, sk, heads, d = 150, 170, 2, 64
    if varlen:
        cu_q = torch.tensor([0, 70, 150], dtype=torch.int32, device="cuda")
        cu_k = torch.tensor([0, 90, 170], dtype=torch.int32, device="cuda")
        shape_q, shape_k = (sq, heads, d), (sk, heads, d)
    else:
        shape_q, shape_k = (1, sq, heads, d), (1, sk, heads, d)
    q, dout = randn(*shape_q, seed=51), randn(*shape_q, seed=52)
    k, v = randn(*shape_k, seed=53), randn(*shape_k, seed=54)
    leaves = [t.requires_grad_(True) for t in (q, k, v)]
    # The same window written as its widest sides: at least seqlen_k left, seqlen_q right.
    fitted = tuple(w if w != BIG else (sk if i == 0 else sq) for i, w in enumerate(window))

    def call(win):
        kw = dict(causal=causal, window_size=win, deterministic=True)
        if varlen:
            return lambda q_, k_, v_: flashcore.flash_attn_varlen_func(q_, k_, v_, cu_q, cu_k, 80, 90, **kw)
        return lambda q_, k_, v_: flashcore.flash_attn_func(q_, k_, v_, **kw)

    _attention._set_forced_arch(None if arch == "sm90a" else arch)
    try:
        big = grads_of(call(window), leaves, dout)
        fit = grads_of(call(fitted), leaves, dout)
    finally:
        _attention._set_forced_arch(None)
    for name, a, b in zip(("out", "dq", "dk", "dv"), (big[0],) + big[1], (fit[0],) + fit[1]):
        assert torch.equal(a, b), "%s with window %r differs from window %r" % (name, window, fitted)
    if varlen:
        views = [(slice(0, 70), slice(0, 90)), (slice(70, 150), slice(90, 170))]
    else:
        views = [(slice(None), slice(None))]
    for rows, keys in views:
        pick_q = (lambda t: t[rows].unsqueeze(0)) if varlen else (lambda t: t)
        pick_k = (lambda t: t[keys].unsqueeze(0)) if varlen else (lambda t: t)
        ref, low = references(pick_q(q.detach()), pick_k(k.detach()), pick_k(v.detach()), pick_q(dout),
                              causal=causal, window_size=fitted)
        check_close("out", pick_q(big[0]), ref.out, low.out)
        check_close("dq", pick_q(big[1][0]), ref.dq, low.dq)
        check_close("dk", pick_k(big[1][1]), ref.dk, low.dk)


@pytest.mark.parametrize("window, causal", [((BIG, BIG), False), ((BIG, 0), True)])
@pytest.mark.parametrize("num_splits", [1, 4])
def test_kvcache_window_sides_up_to_int32_max_mean_the_whole_cache(window, causal, num_splits):
    capacity, heads, d = 1000, 4, 64
    k_cache, v_cache = randn(2, capacity, heads, d, seed=61), randn(2, capacity, heads, d, seed=62)
    q = randn(2, 3, heads, d, seed=63)
    lens = torch.tensor([700, 900], dtype=torch.int32, device="cuda")
    kw = dict(cache_seqlens=lens, causal=causal, num_splits=num_splits)
    big = flashcore.flash_attn_with_kvcache(q, k_cache, v_cache, window_size=window, **kw)
    fit = flashcore.flash_attn_with_kvcache(q, k_cache, v_cache, window_size=(capacity, 0 if causal else 3), **kw)
    assert torch.equal(big, fit), "window %r differs from the cache-wide window" % (window,)
    for b, n in enumerate((700, 900)):
        ref, low = references(q[b:b + 1], k_cache[b:b + 1, :n], v_cache[b:b + 1, :n], torch.zeros_like(q[b:b + 1]),
                              causal=causal)
        check_close("out (row %d)" % b, big[b:b + 1], ref.out, low.out)


# Softcap's range (a cap bounds every score, so bf16 calls with softcaps up to 52.7 take the sm90a
# forward's softmax step without a running max: kernels/common/online_softmax.cuh step_bounded;
# fp16 and larger softcaps keep the running max): scores spread over the cap; every score just
# above -softcap (tanh near -1: P near its smallest, 2^-120 at softcaps from 41.6 on); one key per
# row far above the others (P spanning the whole range, up to 2^32 at 52.7). out, lse and the
# gradients (the backward rebuilds P from the lse; one_high: dv only, its one-hot softmax leaves dq
# and dk at rounding level, which no relative bound can judge) against the float64 reference;
# both dtypes, each side of the bound.
@pytest.mark.parametrize("softcap", [30.0, 50.0, 52.5, 60.0])
@pytest.mark.parametrize("scores", ["spread", "near_floor", "one_high"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_softcap_range_matches_float64(dtype, head_dim, scores, softcap):
    seed = 1000 * head_dim + int(softcap) + 10 * len(scores)
    b, s, h = 2, 300, 4
    q, k, v = (randn(b, s, h, head_dim, dtype=torch.float32, seed=seed + i) for i in range(3))
    scale = head_dim ** -0.5 * 3.0
    if scores != "spread":
        # q . k = -9 +- ~1.5 for every pair; times scale / softcap = 0.5: tanh arguments -4.5 +- 0.75.
        u = randn(head_dim, dtype=torch.float32, seed=seed + 3)
        u = u / u.norm()
        q, k = 3.0 * u + 0.3 * q, -3.0 * u + 0.3 * k
        scale = 0.5 * softcap
        if scores == "one_high":
            k[:, 7] = -k[:, 7]  # key 7: tanh argument +4.5, far above the others
    q, k, v = (t.to(dtype).requires_grad_() for t in (q, k, v))
    dout = randn(b, s, h, head_dim, dtype=dtype, seed=seed + 4)
    out, lse, _ = flashcore.flash_attn_func(q, k, v, softmax_scale=scale, softcap=softcap, return_attn_probs=True)
    grads = torch.autograd.grad(out, (q, k, v), dout)
    ref, low = references(q.detach(), k.detach(), v.detach(), dout, softmax_scale=scale, softcap=softcap)
    check_close("out", out.detach(), ref.out, low.out)
    check_close("lse", lse, ref.lse, low.lse)
    for name, g, r, lg in zip(("dq", "dk", "dv"), grads, (ref.dq, ref.dk, ref.dv), (low.dq, low.dk, low.dv)):
        if scores != "one_high" or name == "dv":
            check_close(name, g, r, lg)


# A row that sees one key has P = 1: its out is that key's v, and in exact math its dq is 0 (dS =
# P (dP - D) with D = dO . out = dO . v = dP). The bf16 softcap forward subtracts a fixed bound
# instead of the row max (online_softmax.cuh step_bounded), so such a row's P is not 1 there; its
# sum must count P as the P V GEMM rounds it, or out misses v by an ulp and the backward's dq is
# 10-20x the same math's error (found by the fuzzer's one-key sequences, session 54). Both dtypes,
# with and without softcap (softcap 0 and fp16 take the running max), both head dims.
@pytest.mark.parametrize("softcap", [0.0, 5.0, 30.0])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_one_key_rows_return_that_key_and_zero_dq(dtype, head_dim, softcap):
    lens_q, lens_k = [232, 1, 40], [1, 62, 1]
    cu_q = torch.tensor([0, 232, 233, 273], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, 1, 63, 64], dtype=torch.int32, device="cuda")
    seed = 7 * head_dim + int(softcap)
    q, k, v = (randn(n, 2, head_dim, dtype=dtype, seed=seed + i) for i, n in enumerate((273, 64, 64)))
    dout = randn(273, 2, head_dim, dtype=dtype, seed=seed + 3)
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    out = flashcore.flash_attn_varlen_func(*leaves, cu_q, cu_k, max(lens_q), max(lens_k), softcap=softcap)
    grads = torch.autograd.grad(out, leaves, dout)
    for seq in (0, 2):  # the one-key sequences: every row's out is its key's v, bit for bit
        rows = out[int(cu_q[seq]):int(cu_q[seq + 1])].detach()
        assert torch.equal(rows, v[int(cu_k[seq])].expand_as(rows)), "sequence %d: out is not its one key's v" % seq
    ref, low = references(q, k, v, dout, softcap=softcap, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k)
    check_close("out", out.detach(), ref.out, low.out)
    for name, g, r, lg in zip(("dq", "dk", "dv"), grads, (ref.dq, ref.dk, ref.dv), (low.dq, low.dk, low.dv)):
        check_close(name, g, r, lg)


if __name__ == "__main__":
    check_expected_gpu()
    sys.exit(pytest.main([__file__, "-q", "-rs", "-s", "-p", "no:cacheprovider", "--durations=8"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
