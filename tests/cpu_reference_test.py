"""CPU suite: the float64 reference the GPU oracle suites judge the kernels by
(flashcore.reference), checked against torch's math SDPA in float64 on the CPU: outputs, lse,
gradients (through lse too), the bottom-right causal mask and rows that see no key."""

import math
import os
import sys

import pytest
import torch
import torch.nn.functional as F

from flashcore.reference import attention_reference, attention_reference_grads, causal_mask


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


@pytest.mark.parametrize("sq, sk", [(1, 1), (17, 17), (5, 40), (40, 5)])
@pytest.mark.parametrize("causal", [False, True])
def test_reference_grads_match_torch_math_sdpa_grads(sq, sk, causal):
    g = torch.Generator().manual_seed(sq * 7 + sk)
    q, k, v = (torch.randn(2, s, 3, 64, generator=g, dtype=torch.float64) for s in (sq, sk, sk))
    dout = torch.randn(2, sq, 3, 64, generator=g, dtype=torch.float64)
    dq, dk, dv = attention_reference_grads(q, k, v, dout, causal=causal, softmax_scale=0.3)
    # torch on the rows that see a key (bottom-right causal: the last min(sq, sk) rows when sq > sk).
    first = max(0, sq - sk) if causal else 0
    qs = q[:, first:].clone().requires_grad_(True)
    ks, vs = k.clone().requires_grad_(True), v.clone().requires_grad_(True)
    mask = causal_mask(sq - first, sk) if causal else None
    out = F.scaled_dot_product_attention(qs.transpose(1, 2), ks.transpose(1, 2), vs.transpose(1, 2),
                                         attn_mask=mask, scale=0.3).transpose(1, 2)
    want_dq, want_dk, want_dv = torch.autograd.grad((out * dout[:, first:]).sum(), (qs, ks, vs))
    assert torch.allclose(dq[:, first:], want_dq, atol=1e-10) and (dq[:, :first] == 0).all()
    assert torch.allclose(dk, want_dk, atol=1e-10) and torch.allclose(dv, want_dv, atol=1e-10)
    assert all(torch.isfinite(t).all() for t in (dq, dk, dv))


def test_reference_grads_through_lse():
    g = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(1, 6, 2, 64, generator=g, dtype=torch.float64) for _ in range(3))
    dout = torch.zeros(1, 6, 2, 64, dtype=torch.float64)
    dlse = torch.randn(1, 2, 6, generator=g, dtype=torch.float64)
    dq, dk, dv = attention_reference_grads(q, k, v, dout, softmax_scale=0.5, dlse=dlse)
    qq = q.clone().requires_grad_(True)
    lse = torch.logsumexp(torch.einsum("bqhd,bkhd->bhqk", qq, k) * 0.5, -1)
    (want,) = torch.autograd.grad((lse * dlse).sum(), qq)
    assert torch.allclose(dq, want, atol=1e-12) and (dv == 0).all()


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
