"""CPU suite: the float64 feature reference (flashcore.reference.features_reference: GQA, packed
varlen, seqused_k, sliding window, softcap, sinks, gradients by autograd) against independent
constructions, and the custom op's sink-gradient formula against it."""

import os
import sys

import pytest
import torch

from flashcore import _attention
from flashcore.reference import attention_reference, features_reference, window_mask


def cu(*lengths):
    return torch.tensor([0] + list(torch.tensor(lengths).cumsum(0).tolist()), dtype=torch.int32)


def rnd(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_window_mask_matches_the_definition():
    for sq, sk in ((5, 9), (9, 5), (7, 7)):
        for window, causal in (((2, 1), False), ((0, 0), False), ((-1, 3), False), ((3, -1), False),
                               ((2, 5), True), ((-1, -1), True)):
            m = window_mask(sq, sk, window, causal)
            left, right = window
            right = 0 if causal else right
            for i in range(sq):
                for j in range(sk):
                    d = i + sk - sq
                    want = (left < 0 or j >= d - left) and (right < 0 or j <= d + right)
                    assert bool(m[i, j]) == want


def test_clamp_window_keeps_every_window_and_fits_int32_positions():
    """The kernels take window sides cut to the sequences (flashcore._checks.clamp_window): the same
    mask for every side, and diag + right + 1 / diag - left inside int32 for sides up to 2^31 - 1."""
    from flashcore._checks import clamp_window
    big = 2**31 - 1
    for sq, sk in ((5, 9), (9, 5), (7, 7), (1, 12)):
        for left in (-1, 0, 2, sk - 1, sk, sk + 1, big):
            for right in (-1, 0, 3, sq - 1, sq, sq + 1, big):
                cl, cr = clamp_window(left, right, sq, sk)
                assert (cl < 0) == (left < 0) and (cr < 0) == (right < 0)
                assert cl <= sk and cr <= sq
                for causal in (False, True):
                    assert torch.equal(window_mask(sq, sk, (left, right), causal),
                                       window_mask(sq, sk, (cl, cr), causal)), (sq, sk, left, right, causal)


def test_plain_reference_is_the_existing_one():
    q, k, v, do = rnd(2, 7, 3, 64, seed=1), rnd(2, 9, 3, 64, seed=2), rnd(2, 9, 3, 64, seed=3), rnd(2, 7, 3, 64, seed=4)
    for causal in (False, True):
        r = features_reference(q, k, v, causal=causal, softmax_scale=0.3, dout=do)
        o, lse = attention_reference(q, k, v, causal=causal, softmax_scale=0.3)
        assert torch.allclose(r.out, o, atol=1e-12) and torch.allclose(r.lse, lse, atol=1e-12)


def test_gqa_reference_is_mha_on_repeated_heads_with_summed_grads():
    q, k, v = rnd(2, 6, 8, 64, seed=1), rnd(2, 10, 2, 64, seed=2), rnd(2, 10, 2, 64, seed=3)
    do = rnd(2, 6, 8, 64, seed=4)
    r = features_reference(q, k, v, causal=True, dout=do)
    ke, ve = (x.clone().requires_grad_(True) for x in (k, v))
    qe = q.clone().requires_grad_(True)
    o, lse = attention_reference(qe, ke.repeat_interleave(4, 2), ve.repeat_interleave(4, 2), causal=True)
    dq, dk, dv = torch.autograd.grad((o * do).sum(), (qe, ke, ve))
    assert torch.allclose(r.out, o, atol=1e-12) and torch.allclose(r.lse, lse, atol=1e-12)
    for a, b in zip((r.dq, r.dk, r.dv), (dq, dk, dv)):
        assert torch.allclose(a, b, atol=1e-10)


def test_varlen_reference_is_per_sequence_dense_and_leaves_padding_rows_zero():
    lq, lk = (3, 0, 5), (4, 2, 6)
    q, k, v = rnd(10, 4, 64, seed=1), rnd(14, 2, 64, seed=2), rnd(14, 2, 64, seed=3)
    do = rnd(10, 4, 64, seed=4)
    q[8:], k[12:], v[12:], do[8:] = (float("nan"),) * 4  # padding rows: never read
    cq, ck = cu(*lq), cu(*lk)
    used = torch.tensor([4, 2, 3], dtype=torch.int32)
    r = features_reference(q, k, v, causal=True, window_size=(2, 0), cu_seqlens_q=cq, cu_seqlens_k=ck,
                           seqused_k=used, dout=do)
    assert r.out.shape == q.shape and r.lse.shape == (4, 10)
    for b in range(3):
        a, e = cq[b].item(), cq[b + 1].item()
        ka = ck[b].item()
        ke = ka + min(lk[b], used[b].item())
        if e == a:
            continue
        want = features_reference(q[None, a:e], k[None, ka:ke], v[None, ka:ke], causal=True, window_size=(2, 0),
                                  dout=do[None, a:e])
        assert torch.allclose(r.out[a:e], want.out[0], atol=1e-12)
        assert torch.allclose(r.lse[:, a:e], want.lse[0], atol=1e-12)
        assert torch.allclose(r.dq[a:e], want.dq[0], atol=1e-12)
        assert torch.allclose(r.dk[ka:ke], want.dk[0], atol=1e-12)
    assert (r.out[8:] == 0).all() and (r.dq[8:] == 0).all() and (r.dk[12:] == 0).all()
    assert all(torch.isfinite(x).all() for x in (r.out, r.dq, r.dk, r.dv))
    assert (r.dk[ck[2].item() + 3:] == 0).all()  # keys past seqused_k get no gradient


def test_softcap_reference_matches_the_formula():
    q, k, v = rnd(1, 5, 2, 64, seed=1), rnd(1, 6, 2, 64, seed=2), rnd(1, 6, 2, 64, seed=3)
    r = features_reference(q, k, v, softmax_scale=0.5, softcap=2.0)
    s = 2.0 * torch.tanh(torch.einsum("bqhd,bkhd->bhqk", q, k) * 0.5 / 2.0)
    p = torch.softmax(s, -1)
    assert torch.allclose(r.out, torch.einsum("bhqk,bkhd->bqhd", p, v), atol=1e-12)
    assert torch.allclose(r.lse, torch.logsumexp(s, -1), atol=1e-12)


def test_sink_reference_is_an_extra_key_with_a_zero_value_and_its_gradient_checks():
    # The sink as one more key: q' = [q, 1], k_sink = [0, sink / scale], v_sink = 0.
    q, k, v = rnd(1, 5, 2, 64, seed=1), rnd(1, 7, 2, 64, seed=2), rnd(1, 7, 2, 64, seed=3)
    sink, do, dlse = rnd(2, seed=4), rnd(1, 5, 2, 64, seed=5), rnd(1, 2, 5, seed=6)
    scale = 0.2
    r = features_reference(q, k, v, softmax_scale=scale, causal=True, sink=sink, dout=do, dlse=dlse)
    q1 = torch.cat([q, torch.ones(1, 5, 2, 1, dtype=q.dtype)], -1)
    ks = torch.cat([torch.zeros(1, 1, 2, 64, dtype=q.dtype), (sink / scale).view(1, 1, 2, 1)], -1)
    k1 = torch.cat([ks, torch.cat([k, torch.zeros(1, 7, 2, 1, dtype=q.dtype)], -1)], 1)
    v1 = torch.cat([torch.zeros(1, 1, 2, 64, dtype=q.dtype), v], 1)
    # causal over the 7 real keys: the sink key (position 0) is seen by every row, as it must be
    o, lse = attention_reference(q1, k1, v1, causal=True, softmax_scale=scale)
    assert torch.allclose(r.out, o, atol=1e-12) and torch.allclose(r.lse, lse, atol=1e-12)

    def loss(s):
        rr = features_reference(q, k, v, softmax_scale=scale, causal=True, sink=s)
        return (rr.out * do).sum() + (rr.lse * dlse).sum()
    eps = 1e-6
    for h in range(2):
        e = torch.zeros(2, dtype=torch.float64)
        e[h] = eps
        fd = (loss(sink + e) - loss(sink - e)) / (2 * eps)
        assert abs(fd.item() - r.dsink[h].item()) < 1e-6 * max(1.0, abs(fd.item()))


def test_sink_gradient_formula_of_the_backward_kernels_matches_the_reference():
    # What the backward kernels sum (kernels/flash_bwd_api.h sink_partial): dsink_h =
    # -sum_i exp(sink_h - lse_i) sum_j P_ij dP_ij, P and dP from the scores, not from O; against
    # autograd in float64 (GQA, causal with a window, seqlen_q != seqlen_k).
    sink = rnd(4, seed=7)
    q, k, v, do = rnd(2, 6, 4, 64, seed=1), rnd(2, 9, 2, 64, seed=2), rnd(2, 9, 2, 64, seed=3), rnd(2, 6, 4, 64, seed=4)
    scale = 64 ** -0.5
    r = features_reference(q, k, v, softmax_scale=scale, causal=True, window_size=(3, 0), sink=sink, dout=do)
    kk, vv = k.repeat_interleave(2, dim=2), v.repeat_interleave(2, dim=2)  # query head h reads kv head h // 2
    s = torch.einsum("bqhd,bkhd->bhqk", q, kk) * scale
    s = s.masked_fill(~window_mask(6, 9, (3, 0), causal=True), float("-inf"))
    p = torch.exp(s - r.lse[..., None])  # lse includes the sink
    dp = torch.einsum("bqhd,bkhd->bhqk", do, vv)
    d_exact = (p * dp).sum(-1)  # (b, h, sq)
    dsink = -(torch.exp(sink[None, :, None] - r.lse) * d_exact).sum((0, 2))
    assert torch.allclose(dsink, r.dsink, atol=1e-10)


def test_dsink_terms_of_the_gpu_suites_sum_to_the_reference_dsink():
    # tests/features_case.py dsink_terms (the rows x heads terms the feature and fuzz suites' dsink
    # check takes its error floor from): they sum to -dsink, with an lse gradient, in the dense
    # layout (lse (B, H, Sq)) and the packed one (lse (H, total), NaN rows past cu_seqlens[-1]).
    from features_case import dsink_terms
    sink = rnd(4, seed=7)
    scale = 64 ** -0.5
    q, k, v, do = rnd(2, 6, 4, 64, seed=1), rnd(2, 9, 2, 64, seed=2), rnd(2, 9, 2, 64, seed=3), rnd(2, 6, 4, 64, seed=4)
    dlse = rnd(2, 4, 6, seed=5)
    r = features_reference(q, k, v, softmax_scale=scale, causal=True, sink=sink, dout=do, dlse=dlse)
    terms = dsink_terms(r.out, do, r.lse, sink, slice(None), False, dlse)
    assert terms.shape == (12, 4)
    assert torch.allclose(-terms.sum(0), r.dsink, atol=1e-10)
    assert not torch.allclose(-dsink_terms(r.out, do, r.lse, sink, slice(None), False).sum(0), r.dsink, atol=1e-6)

    cu_q = torch.tensor([0, 6, 9], dtype=torch.int32)
    cu_k = torch.tensor([0, 9, 14], dtype=torch.int32)
    q, do = rnd(11, 4, 64, seed=11), rnd(11, 4, 64, seed=14)
    k, v = rnd(16, 2, 64, seed=12), rnd(16, 2, 64, seed=13)
    dlse = rnd(4, 11, seed=15)
    for t in (q, do, k, v):
        t[-2:] = float("nan")
    dlse[:, 9:] = float("nan")
    r = features_reference(q, k, v, softmax_scale=scale, causal=True, sink=sink, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                           dout=do, dlse=dlse)
    terms = dsink_terms(r.out, do, r.lse, sink, slice(0, 9), True, dlse)
    assert terms.shape == (9, 4) and torch.isfinite(terms).all()
    assert torch.allclose(-terms.sum(0), r.dsink, atol=1e-10)


def test_rows_that_see_no_key_get_zero_output_and_lse_minus_inf_or_the_sink():
    q, k, v = rnd(1, 4, 2, 64, seed=1), rnd(1, 2, 2, 64, seed=2), rnd(1, 2, 2, 64, seed=3)
    r = features_reference(q, k, v, causal=True, dout=torch.ones(1, 4, 2, 64, dtype=torch.float64))
    assert (r.out[0, :2] == 0).all() and torch.isinf(r.lse[0, :, :2]).all() and (r.dq[0, :2] == 0).all()
    sink = rnd(2, seed=4)
    r = features_reference(q, k, v, causal=True, sink=sink)
    assert (r.out[0, :2] == 0).all() and torch.allclose(r.lse[0, :, :2], sink[:, None].expand(2, 2))


def test_low_precision_reference_runs_the_same_math():
    q, k, v = (x.to(torch.bfloat16) for x in (rnd(1, 8, 4, 64, seed=1), rnd(1, 8, 2, 64, seed=2), rnd(1, 8, 2, 64, seed=3)))
    lo = features_reference(q, k, v, causal=True, softcap=5.0, sink=torch.zeros(4), compute_dtype=torch.bfloat16,
                            dout=torch.ones_like(q))
    hi = features_reference(q, k, v, causal=True, softcap=5.0, sink=torch.zeros(4), dout=torch.ones_like(q))
    assert lo.out.dtype == torch.bfloat16 and hi.out.dtype == torch.float64
    err = ((lo.out.double() - hi.out).norm() / hi.out.norm()).item()
    assert 0 < err < 2e-2  # rounded, but the same function


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
