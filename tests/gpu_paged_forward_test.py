"""GPU suite for KV-cache calls of prefill size on the Hopper forward (sm90a; issue 16): a chunk of
new tokens into a contiguous or paged cache (flash_attn_with_kvcache by S_new) and packed queries
over pages (flash_attn_varlen_func(block_table=, seqused_k=)), whose K / V arrive as page-sized TMA
boxes (kernels/hopper/paged_kv.cuh). The oracle and its rules: tests/kvcache_case.py. The decode
kernel's suite is tests/gpu_kvcache_test.py.
"""

import itertools
import math
import os
import sys
import textwrap

import pytest
import torch

import flashcore
from flashcore import kvcache
from gpu_suite_env import check_expected_gpu
from kvcache_case import DEV, ON_SM90A, PAGED, Case, bits, case_id, forced_forward  # noqa: F401 (a fixture)
from kvcache_reference import kvcache_attention
from oracle_constants import UNIT_ROUNDOFF
from sanitizer_check import run_sanitizer

FORWARD_PAGED = [c for c in PAGED if c["page_size"] % kvcache.PAGED_FORWARD_PAGE_MULTIPLE == 0 and not c.get("leftpad")]


# Every paged case of the matrix the Hopper forward takes, on it: its page-sized TMA boxes
# (kernels/hopper/paged_kv.cuh) at pages of 16..256 under 128-key blocks, with GQA / MQA, the
# window, softcap, rotary, S_new 1 and 7 (one query tile) and the NaN sentinels of unused pages.
@pytest.mark.skipif(not ON_SM90A, reason="the paged forward is sm90a's")
@pytest.mark.parametrize("forced_forward", [True], indirect=True)
@pytest.mark.parametrize("spec", FORWARD_PAGED, ids=[case_id(c) for c in FORWARD_PAGED])
def test_paged_matrix_on_the_forward_kernel(spec, forced_forward):
    Case(**spec).run()


# Prefill chunks into a paged cache by the default rule (S_new >= 128 on sm90a: the forward):
# page sizes below, equal to, above and not dividing the 128-key block (48: 16-row boxes), rows of
# several tiles, long caches, GQA 4; causal, window, softcap, rotary.
@pytest.mark.parametrize("page_size", [16, 48, 128, 256])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("feats", [dict(), dict(causal=False), dict(window=(200, -1)), dict(softcap=30.0),
                                   dict(rotary="interleaved", causal=False)], ids=["causal", "full", "window",
                                                                                  "softcap", "rotary"])
def test_prefill_chunk_into_a_paged_cache(page_size, d, feats):
    c = Case(batch=3, heads=(32, 8), d=d, s_new=300, capacity=1500, page_size=page_size, seed=17 + page_size, **feats)
    if ON_SM90A:
        assert kvcache._prefill_on_forward_kernel(c.q, page_size, None, None), "not routed to the forward"
    c.run()


# Head dims other than 64 and 128 (96: Phi-3; 80: Phi-2; 256: Gemma; 200 and 40 predicated) as
# prefill chunks, contiguous and paged, by the default rule (sm90a: the forward, on its own
# kernels) and forced onto the decode kernel (64-row query blocks).
@pytest.mark.parametrize("forced_forward", [None, False], ids=["default", "decode"], indirect=True)
@pytest.mark.parametrize("page_size", [None, 16, 64])
@pytest.mark.parametrize("d", [40, 80, 96, 200, 256])
def test_prefill_chunk_at_predicated_head_dims(d, page_size, forced_forward):
    Case(batch=2, heads=(16, 4), d=d, s_new=150, capacity=700, page_size=page_size, seed=31 + d).run()


# Packed queries over a paged cache (flash_attn_varlen_func(block_table=, seqused_k=)), on each
# kernel: sequences of 1 to 300 query rows (several query tiles, and one row), keys to 1000 in
# pages of 16 / 48 / 256, a sequence with no keys; every unused page and row NaN.
@pytest.mark.parametrize("forced_forward", [True, False], ids=["forward", "decode"], indirect=True)
@pytest.mark.parametrize("page_size", [16, 48, 256])
@pytest.mark.parametrize("window,softcap", [((-1, 0), 0.0), ((-1, -1), 0.0), ((100, 0), 20.0)],
                         ids=["causal", "full", "window_softcap"])
@pytest.mark.parametrize("d", [128, 80, 256])  # 80: predicated on the forward's 96, the decode kernel's 128
def test_paged_varlen_on_each_kernel(d, page_size, window, softcap, forced_forward):
    if forced_forward and not ON_SM90A:
        pytest.skip("the paged forward is sm90a's")
    paged_varlen_case(d, page_size, window, softcap, seed=page_size + d)


def paged_varlen_case(d, page_size, window, softcap, seed, public=False):
    g = torch.Generator().manual_seed(seed)
    dtype, hq, hk = torch.bfloat16, 16, 4
    q_lens, k_lens = [130, 1, 300, 64, 77], [1000, 40, 300, 0, 555]
    batch = len(q_lens)
    max_pages = -(-1000 // page_size)
    num_pages = batch * max_pages + 2
    block_table = torch.randperm(num_pages, generator=g)[:batch * max_pages].view(batch, max_pages)
    block_table = block_table.to(torch.int32).to(DEV)
    k_cache = torch.full((num_pages, page_size, hk, d), float("nan"), dtype=dtype, device=DEV)
    v_cache = torch.full_like(k_cache, float("nan"))
    for b, n in enumerate(k_lens):
        pos = torch.arange(n, device=DEV)
        pages = block_table[b].long()[pos // page_size]
        k_cache[pages, pos % page_size] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
        v_cache[pages, pos % page_size] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
    cu = torch.tensor([0] + list(itertools.accumulate(q_lens)), dtype=torch.int32, device=DEV)
    q = torch.randn(sum(q_lens), hq, d, generator=g).to(dtype).to(DEV)
    out = torch.full_like(q, float("nan"))
    lse = torch.full((hq, sum(q_lens)), float("nan"), device=DEV)
    seqused = torch.tensor(k_lens, dtype=torch.int32, device=DEV)
    scale = 1 / math.sqrt(d)
    kvcache.paged_attention_varlen_into(q, k_cache, v_cache, block_table, seqused, cu, max(q_lens), out, lse,
                                        softmax_scale=scale, window_size=window, softcap=softcap)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any(), "NaN in the output"
    if public:  # flash_attn_varlen_func(block_table=, seqused_k=), vLLM's call: the same bits
        got, got_lse, _ = flashcore.flash_attn_varlen_func(
            q, k_cache, v_cache, cu, None, max(q_lens), None, softmax_scale=scale, window_size=window,
            softcap=softcap, return_attn_probs=True, block_table=block_table, seqused_k=seqused)
        assert torch.equal(bits(got), bits(out)) and torch.equal(got_lse, lse)
    for b in range(batch):
        rows = slice(int(cu[b]), int(cu[b + 1]))
        kw = dict(block_table=block_table[b:b + 1], cache_batch_idx=None, cache_leftpad=None, softmax_scale=scale,
                  window=window, softcap=softcap)
        ref, ref_lse = kvcache_attention(q[rows][None], k_cache, v_cache, [k_lens[b]], **kw)
        low, _ = kvcache_attention(q[rows][None], k_cache, v_cache, [k_lens[b]], dtype=dtype, **kw)
        err = (out[rows][None].double() - ref).abs().max().item()
        base = (low.double() - ref).abs().max().item()
        assert err <= 2 * max(base, UNIT_ROUNDOFF[dtype] * max(1.0, ref.abs().max().item())), \
            "sequence %d: %.3g vs %.3g" % (b, err, base)
        lb, rl = lse[:, rows], ref_lse[0]
        finite = torch.isfinite(rl)
        assert torch.equal(torch.isfinite(lb), finite), "sequence %d: lse finite where the oracle is not" % b
        assert (lb[~finite] == -math.inf).all()
        if finite.any():
            assert (lb.double() - rl).abs()[finite].max().item() < 5e-3 * max(1.0, rl[finite].abs().max().item())


@pytest.mark.parametrize("d", [80, 256])
def test_public_paged_varlen_matches_the_entry_point(d):
    paged_varlen_case(d, 16, (-1, 0), 0.0, seed=7 + d, public=True)


@pytest.mark.parametrize("rotary", [None, "interleaved"])
def test_prefill_chunk_into_a_contiguous_cache(rotary):
    # 130 new tokens into a contiguous cache: on sm90a the prefill path (the Hopper forward over the
    # cache's used prefix, after the torch append), with and without rotary.
    Case(batch=2, heads=(32, 8), s_new=130, capacity=700, rotary=rotary, seed=13).run()


def test_errors_name_the_argument_on_the_forward_path():
    # A prefill chunk over pages (the Hopper forward on sm90a): the eager length and table checks
    # run before the append and the launch, as on the decode path; the cache is left as it was.
    c = Case(batch=2, page_size=16, s_new=130, capacity=400, seed=3)
    if ON_SM90A:
        assert kvcache._prefill_on_forward_kernel(c.q, 16, None, None), "not routed to the forward"
    kc, vc = c.k_cache.clone(), c.v_cache.clone()
    with pytest.raises(ValueError, match="block_table too short"):
        flashcore.flash_attn_with_kvcache(c.q, kc, vc, c.k_new, c.v_new,
                                          cache_seqlens=torch.tensor([400 - 129, 0], dtype=torch.int32, device=DEV),
                                          block_table=c.block_table)
    bad = c.block_table.clone()
    bad[0, 0] = 10**6
    with pytest.raises(ValueError, match="block_table names a page outside"):
        flashcore.flash_attn_with_kvcache(c.q, kc, vc, c.k_new, c.v_new, cache_seqlens=c.cache_seqlens,
                                          block_table=bad)
    assert torch.equal(bits(kc), bits(c.k_cache)) and torch.equal(bits(vc), bits(c.v_cache))


# The Hopper forward over pages: pages of 16 (eight boxes a key block) and 48 (16-row boxes that
# step across pages), a prefill chunk ending inside a block (V's patched rows, zeroed by the whole
# producer warp), and a packed batch with a keyless sequence.
FORWARD_SANITIZER_CASE = textwrap.dedent("""
    import torch, flashcore
    from flashcore import kvcache
    torch.manual_seed(0)
    dt, hk, d = torch.bfloat16, 2, 128
    for ps in (16, 48):
        pages = -(-700 // ps)
        kc = torch.randn(2 * pages + 1, ps, hk, d, device="cuda").to(dt)
        vc = torch.randn(2 * pages + 1, ps, hk, d, device="cuda").to(dt)
        bt = torch.randperm(2 * pages + 1, device="cuda")[:2 * pages].view(2, pages).to(torch.int32)
        q = torch.randn(2, 130, 8, d, device="cuda").to(dt)
        k = torch.randn(2, 130, hk, d, device="cuda").to(dt)
        v = torch.randn(2, 130, hk, d, device="cuda").to(dt)
        lens = torch.tensor([300, 521], dtype=torch.int32, device="cuda")
        out = flashcore.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, block_table=bt, causal=True)
        cu = torch.tensor([0, 130, 131, 400], dtype=torch.int32, device="cuda")
        used = torch.tensor([430, 0, 651], dtype=torch.int32, device="cuda")
        qv = torch.randn(400, 8, d, device="cuda").to(dt)
        bt3 = torch.cat([bt, bt[:1]]).contiguous()
        kvcache._set_forced_forward(True)
        kvcache.paged_attention_varlen_into(qv, kc, vc, bt3, used, cu, 269, torch.empty_like(qv), None,
                                            softmax_scale=d ** -0.5, causal=True)
        kvcache._set_forced_forward(None)
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


@pytest.mark.skipif(not ON_SM90A, reason="the paged forward is sm90a's")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_compute_sanitizer_paged_forward(tool, tmp_path):
    run_sanitizer(tool, FORWARD_SANITIZER_CASE, "fwd_kernel", tmp_path)


if __name__ == "__main__":
    check_expected_gpu()
    sys.exit(pytest.main([__file__, "-q", "-rs", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
