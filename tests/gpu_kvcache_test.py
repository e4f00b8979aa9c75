"""GPU suite for flashcore.flash_attn_with_kvcache (KV-cache attention; issue 16).

Oracle: float64 attention over the cache (tests/kvcache_reference.py, independent of the
implementation) on fresh random inputs; flashcore's max error must be at most 2x that of the same
math in the inputs' dtype (FlashAttention's rule; floor: one unit roundoff of the output scale),
NaN never passes. The cache after the call must equal the expected cache exactly (rotary-rotated
new keys: within one rounding, since the oracle rotates in float64), and every position the call
must not touch -- past the lengths, before the leftpad, unused pages and rows -- holds a NaN
sentinel before and after (compared bitwise): a kernel that read one of them would turn the
output NaN.
"""

import itertools
import math
import os
import random
import sys
import textwrap

import pytest
import torch

import flashcore
from flashcore import kvcache
from kvcache_reference import expected_cache, kvcache_attention, rotary64
from sanitizer_check import run_sanitizer
from gpu_suite_env import check_expected_gpu
from oracle_constants import UNIT_ROUNDOFF
DEV = "cuda"


def bits(t):
    return t.view(torch.int16)


class Case:
    """One call's inputs, built from a dict of choices."""

    def __init__(self, dtype=torch.bfloat16, d=128, page_size=None, s_new=1, heads=(8, 2), append=True,
                 causal=True, window=(-1, -1), softcap=0.0, rotary=None, num_splits=0, lse=True,
                 batch_idx=False, leftpad=False, batch=3, capacity=300, seed=0):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        g = torch.Generator().manual_seed(seed)
        rnd = random.Random(seed)
        hq, hk = heads
        self.q = torch.randn(batch, s_new, hq, d, generator=g).to(dtype).to(DEV)
        self.k_new = torch.randn(batch, s_new, hk, d, generator=g).to(dtype).to(DEV) if append else None
        self.v_new = torch.randn(batch, s_new, hk, d, generator=g).to(dtype).to(DEV) if append else None
        room = capacity - (s_new if append else 0)
        self.leftpads = [rnd.randint(0, 20) if leftpad else 0 for _ in range(batch)]
        # Lengths before the append; one row at the full capacity, one short (the splits' edge cases).
        lens = [rnd.randint(lp, room) for lp in self.leftpads]
        lens[0] = room
        if batch > 1:
            lens[1] = max(self.leftpads[1], min(room, 5))
        self.lens = lens
        nan = float("nan")
        if page_size is None:
            rows = batch + 2 if batch_idx else batch
            self.k_cache = torch.full((rows, capacity, hk, d), nan, dtype=dtype, device=DEV)
            self.v_cache = torch.full_like(self.k_cache, nan)
            perm = list(range(rows))
            rnd.shuffle(perm)
            self.cache_batch_idx = torch.tensor(perm[:batch], dtype=torch.int32, device=DEV) if batch_idx else None
            self.block_table = None
            self.capacity = capacity
            for b in range(batch):
                r = perm[b] if batch_idx else b
                n = lens[b] - self.leftpads[b]
                self.k_cache[r, self.leftpads[b]:lens[b]] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
                self.v_cache[r, self.leftpads[b]:lens[b]] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
        else:
            max_pages = -(-capacity // page_size)
            num_pages = batch * max_pages + 3  # spare pages stay NaN
            perm = torch.randperm(num_pages, generator=g)
            self.block_table = perm[:batch * max_pages].view(batch, max_pages).to(torch.int32).to(DEV)
            self.cache_batch_idx = None
            self.capacity = max_pages * page_size
            self.k_cache = torch.full((num_pages, page_size, hk, d), nan, dtype=dtype, device=DEV)
            self.v_cache = torch.full_like(self.k_cache, nan)
            for b in range(batch):
                pos = torch.arange(self.leftpads[b], lens[b], device=DEV)
                pages = self.block_table[b].long()[pos // page_size]
                n = pos.numel()
                self.k_cache[pages, pos % page_size] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
                self.v_cache[pages, pos % page_size] = torch.randn(n, hk, d, generator=g).to(dtype).to(DEV)
        self.cache_seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
        self.cache_leftpad = torch.tensor(self.leftpads, dtype=torch.int32, device=DEV) if leftpad else None
        self.cos = self.sin = None
        if rotary is not None:
            rot = d // 2 if rotary.endswith("_half") else d  # rotary_dim < head_dim too
            angle = torch.rand(self.capacity + 8, rot // 2, generator=g, dtype=torch.float64) * 2 * math.pi
            self.cos = angle.cos().to(dtype).to(DEV)
            self.sin = angle.sin().to(dtype).to(DEV)
        self.softmax_scale = 1.0 / math.sqrt(d) if seed % 3 else 0.5 / math.sqrt(d)

    def window_pair(self):
        return (self.window[0], 0) if self.causal else self.window

    def run(self):
        """Calls flashcore (on clones of the caches) and checks it; returns (out error, bound)."""
        kc, vc = self.k_cache.clone(), self.v_cache.clone()
        # Poison the allocator's next blocks of out's and lse's sizes (best effort: the caching
        # allocator hands a freed block of the same size to the next request on the stream).
        poison = torch.full(self.q.shape, float("nan"), dtype=self.dtype, device=DEV)
        poison_lse = torch.full((self.batch, self.heads[0], self.s_new), float("nan"), device=DEV)
        del poison, poison_lse
        res = flashcore.flash_attn_with_kvcache(
            self.q, kc, vc, self.k_new, self.v_new, rotary_cos=self.cos, rotary_sin=self.sin,
            cache_seqlens=self.cache_seqlens, cache_batch_idx=self.cache_batch_idx,
            cache_leftpad=self.cache_leftpad, block_table=self.block_table, softmax_scale=self.softmax_scale,
            causal=self.causal, window_size=self.window, softcap=self.softcap,
            rotary_interleaved=self.rotary is not None and self.rotary.startswith("interleaved"),
            num_splits=self.num_splits, return_softmax_lse=self.lse)
        out, lse = res if self.lse else (res, None)
        torch.cuda.synchronize()
        interleaved = self.rotary is not None and self.rotary.startswith("interleaved")

        # The cache: exact, except rotated new keys (float64 oracle vs float32 rotation) within one rounding.
        k_new = self.k_new
        if self.append and self.cos is not None:
            pos = self.cache_seqlens.long()[:, None] + torch.arange(self.s_new, device=DEV)[None, :]
            k_new = rotary64(self.k_new, self.cos, self.sin, pos, interleaved).to(self.dtype)
        want_k = expected_cache(self.k_cache, k_new, self.lens, self.block_table, self.cache_batch_idx)
        want_v = expected_cache(self.v_cache, self.v_new, self.lens, self.block_table, self.cache_batch_idx)
        assert torch.equal(bits(vc), bits(want_v)), "v_cache after the call differs from the expected cache"
        if self.cos is None or not self.append:
            assert torch.equal(bits(kc), bits(want_k)), "k_cache after the call differs from the expected cache"
        else:
            nan_k, nan_want = torch.isnan(kc), torch.isnan(want_k)
            assert torch.equal(nan_k, nan_want), "k_cache: the NaN sentinels moved"
            diff = (kc.float() - want_k.float()).abs()[~nan_k]
            assert diff.max().item() <= 2 * UNIT_ROUNDOFF[self.dtype] * want_k.float().abs()[~nan_k].max().item()

        # Attention, against the float64 oracle over the cache the call left.
        q = self.q
        if self.cos is not None:
            w = self.window_pair()
            steps = torch.arange(self.s_new, device=DEV)[None, :] if (w[0] >= 0 or w[1] >= 0) else 0
            q_pos = (self.cache_seqlens.long()[:, None] + steps).expand(self.batch, self.s_new)
            q = rotary64(self.q, self.cos, self.sin, q_pos, interleaved).to(self.dtype)
        total = [n + (self.s_new if self.append else 0) for n in self.lens]
        kw = dict(block_table=self.block_table, cache_batch_idx=self.cache_batch_idx,
                  cache_leftpad=self.cache_leftpad, softmax_scale=self.softmax_scale, window=self.window_pair(),
                  softcap=self.softcap)
        ref, ref_lse = kvcache_attention(q, kc, vc, total, **kw)
        low, _ = kvcache_attention(q, kc, vc, total, dtype=self.dtype, **kw)
        assert not torch.isnan(out).any(), "NaN in the output"
        err = (out.double() - ref).abs().max().item()
        base = (low.double() - ref).abs().max().item()
        floor = UNIT_ROUNDOFF[self.dtype] * max(1.0, ref.abs().max().item())
        bound = 2 * max(base, floor)
        assert err <= bound, "max error %.3g > 2x the low-precision error (bound %.3g)" % (err, bound)
        if self.lse:
            assert lse.shape == (self.batch, self.heads[0], self.s_new) and lse.dtype == torch.float32
            finite = torch.isfinite(ref_lse)
            assert torch.equal(torch.isfinite(lse), finite), "lse finite where the oracle is not (or NaN)"
            assert (lse[~finite] == -math.inf).all()
            tol = 5e-3 if self.softcap > 0 else 1e-3
            lse_err = (lse.double() - ref_lse).abs()[finite]
            assert lse_err.numel() == 0 or lse_err.max().item() <= tol * max(1.0, ref_lse[finite].abs().max().item())
        return err, bound


# --- The matrix ----------------------------------------------------------------------------
# Layouts x S_new x heads, over both dtypes and head dims; the other features rotate over the
# cases so that each appears many times in different combinations.
LAYOUTS = [None, 16, 32, 64, 128, 256]
HEADS = [(4, 4), (8, 2), (16, 2), (8, 1)]  # GQA 1 (MHA), 4, 8, MQA
FEATURES = [
    dict(),
    dict(causal=False),
    dict(append=False),
    dict(window=(40, -1)),
    dict(window=(30, 5), causal=False),
    dict(softcap=30.0),
    dict(rotary="interleaved"),
    dict(rotary="neox"),
    dict(rotary="neox_half", causal=False),
    dict(leftpad=True),
    dict(batch_idx=True),
    dict(lse=False),
]
SPLITS = [1, 2, 8, 0]


def matrix():
    cases = []
    for i, (dtype, d, layout, s_new, heads) in enumerate(itertools.product(
            [torch.bfloat16, torch.float16], [128, 64], LAYOUTS, [1, 7], HEADS)):
        feats = dict(FEATURES[i % len(FEATURES)])
        if feats.get("batch_idx") and layout is not None:
            feats = dict(leftpad=True)  # cache_batch_idx is for contiguous caches
        cases.append(dict(dtype=dtype, d=d, page_size=layout, s_new=s_new, heads=heads,
                          num_splits=SPLITS[(i // 3) % len(SPLITS)], seed=i, **feats))
    return cases


def case_id(c):
    parts = ["bf16" if c["dtype"] == torch.bfloat16 else "fp16", "d%d" % c["d"],
             "page%d" % c["page_size"] if c["page_size"] else "contig", "snew%d" % c["s_new"],
             "h%d_%d" % c["heads"], "splits%d" % c["num_splits"]]
    parts += ["%s=%s" % (k, v) for k, v in sorted(c.items())
              if k not in ("dtype", "d", "page_size", "s_new", "heads", "num_splits", "seed")]
    return "-".join(parts).replace(" ", "")


MATRIX = matrix()


@pytest.mark.parametrize("spec", MATRIX, ids=[case_id(c) for c in MATRIX])
def test_matrix(spec):
    Case(**spec).run()


@pytest.fixture
def page_order(request):
    """Forces the order paged decode calls visit their pages in (kernels/decode/tile_policy.h
    decode_page_sort; by rule only some split calls sort), restored afterwards."""
    kvcache._set_forced_page_order(request.param)
    try:
        yield request.param
    finally:
        kvcache._set_forced_page_order(None)


PAGED = [c for c in MATRIX if c["page_size"] is not None]


# Every paged case of the matrix in both orders: address order masks each key by its logical
# position (window, causal, S_new > 1, the partial last page). Where a call is not eligible (more
# than 16 rows a kv head, leftpad, a page wider than the key block) "address" runs key order.
@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("spec", PAGED, ids=[case_id(c) for c in PAGED])
def test_paged_matrix_in_each_page_order(spec, page_order):
    Case(**spec).run()


@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("capacity,num_splits", [(9000, 1), (9000, 3), (9000, 128), (20000, 1), (20000, 2)])
@pytest.mark.parametrize("page_size", [8, 16, 64])
def test_long_paged_cache_in_each_page_order(page_size, capacity, num_splits, page_order):
    # 20000 keys in one split: 1204 pages of 16 past the head blocks, beyond the 1024 the sort
    # takes (key order); 128 splits: splits with no keys or no sorted block, and splits whose last
    # pages are past the keys.
    Case(batch=2, heads=(32, 8), capacity=capacity, page_size=page_size, num_splits=num_splits, seed=9).run()


@pytest.mark.parametrize("page_size", [None, 16, 256])
@pytest.mark.parametrize("num_splits", [0, 1, 3, 128])
def test_long_cache_splits(page_size, num_splits):
    # One long row (keys over many blocks): the split heuristic and the bound of 128 splits.
    Case(batch=2, heads=(32, 8), capacity=9000, page_size=page_size, num_splits=num_splits, seed=7).run()


@pytest.mark.parametrize("forced_forward", [False], ids=["decode"], indirect=True)
@pytest.mark.parametrize("s_new,heads", [(1, (32, 32)), (7, (32, 8)), (64, (32, 8)), (130, (4, 4))])
def test_many_query_rows(s_new, heads, forced_forward):
    # The decode kernel's packed rows beyond one 64-row block (chunked prefill) and its 16-row
    # decode block (by rule the larger ones take the Hopper forward on sm90a: forced here).
    Case(batch=2, heads=heads, s_new=s_new, capacity=700, page_size=64, seed=11).run()


@pytest.mark.parametrize("rotary", [None, "interleaved"])
def test_prefill_chunk_into_a_contiguous_cache(rotary):
    # 130 new tokens into a contiguous cache: on sm90a the prefill path (the Hopper forward over the
    # cache's used prefix, after the torch append), with and without rotary.
    Case(batch=2, heads=(32, 8), s_new=130, capacity=700, rotary=rotary, seed=13).run()


@pytest.fixture
def forced_forward(request):
    """Sends every call the Hopper forward can take (sm90a; contiguous, or pages of a multiple of
    16; no cache_batch_idx / cache_leftpad) to it (True) or to the decode kernel (False), whatever
    its query rows; restored afterwards."""
    kvcache._set_forced_forward(request.param)
    try:
        yield request.param
    finally:
        kvcache._set_forced_forward(None)


ON_SM90A = torch.cuda.is_available() and kvcache._device_arch(0) == "sm90a"
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


# Packed queries over a paged cache (flash_attn_varlen_func(block_table=, seqused_k=)), on each
# kernel: sequences of 1 to 300 query rows (several query tiles, and one row), keys to 1000 in
# pages of 16 / 48 / 256, a sequence with no keys; every unused page and row NaN.
@pytest.mark.parametrize("forced_forward", [True, False], ids=["forward", "decode"], indirect=True)
@pytest.mark.parametrize("page_size", [16, 48, 256])
@pytest.mark.parametrize("window,softcap", [((-1, 0), 0.0), ((-1, -1), 0.0), ((100, 0), 20.0)],
                         ids=["causal", "full", "window_softcap"])
def test_paged_varlen_on_each_kernel(page_size, window, softcap, forced_forward):
    if forced_forward and not ON_SM90A:
        pytest.skip("the paged forward is sm90a's")
    g = torch.Generator().manual_seed(page_size)
    dtype, hq, hk, d = torch.bfloat16, 16, 4, 128
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


@pytest.mark.parametrize("scale", [0.0, -0.4])
def test_zero_and_negative_scales_through_masked_blocks(scale):
    # The decode kernel's masked blocks (causal, a window, ragged split ends) under a zero or a
    # negative softmax scale, split and not. (Its own RowSoftmax, kernels/decode/decode_kernel.cuh,
    # takes scores already scaled and masked to -inf; the forwards' OnlineSoftmax now masks so too.)
    for splits in (1, 3):
        c = Case(batch=2, heads=(32, 8), s_new=7, causal=True, window=(45, 0), capacity=700, page_size=16,
                 num_splits=splits, seed=5)
        c.softmax_scale = scale
        c.run()


def test_rows_that_see_no_key_give_zero_and_neg_inf_lse():
    # Causal, 7 query tokens over 2-3 keys (no append): the diagonal of token t is key t - 5
    # (t - 4), so the first tokens see no key: output 0, lse -inf. Window (0, 0): the diagonal only.
    for window in ((-1, -1), (0, 0)):
        c = Case(batch=2, heads=(4, 4), s_new=7, append=False, causal=True, window=window, capacity=64, seed=3)
        c.lens = [2, 3]
        c.cache_seqlens = torch.tensor(c.lens, dtype=torch.int32, device=DEV)
        c.run()


def test_cuda_graph_replay_with_changing_lengths():
    torch.manual_seed(0)
    dtype, batch, hq, hk, d, ps, max_pages = torch.bfloat16, 4, 16, 4, 128, 16, 64
    num_pages = batch * max_pages
    k_cache = torch.randn(num_pages, ps, hk, d, device=DEV).to(dtype)
    v_cache = torch.randn(num_pages, ps, hk, d, device=DEV).to(dtype)
    block_table = torch.randperm(num_pages, device=DEV).view(batch, max_pages).to(torch.int32)
    q = torch.randn(batch, 1, hq, d, device=DEV).to(dtype)
    k = torch.randn(batch, 1, hk, d, device=DEV).to(dtype)
    v = torch.randn(batch, 1, hk, d, device=DEV).to(dtype)
    seqlens = torch.tensor([5, 100, 700, 1000], dtype=torch.int32, device=DEV)

    def step():
        return flashcore.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens,
                                                 block_table=block_table, causal=True, num_splits=0)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()  # warm-up outside the graph (also appends once; overwritten below)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()
    for it, lens in enumerate([[6, 101, 701, 1001], [1, 2, 3, 4], [1020, 0, 512, 33], [600, 601, 602, 1023]]):
        seqlens.copy_(torch.tensor(lens, dtype=torch.int32))
        q.copy_(torch.randn_like(q.float()).to(dtype))
        k.copy_(torch.randn_like(k.float()).to(dtype))
        v.copy_(torch.randn_like(v.float()).to(dtype))
        before_k = k_cache.clone()
        graph.replay()
        torch.cuda.synchronize()
        want = expected_cache(before_k, k, lens, block_table, None)
        assert torch.equal(bits(k_cache), bits(want)), "replay %d: the append went wrong" % it
        total = [n + 1 for n in lens]
        kw = dict(block_table=block_table, cache_batch_idx=None, cache_leftpad=None,
                  softmax_scale=1 / math.sqrt(d), window=(-1, 0), softcap=0.0)
        ref, _ = kvcache_attention(q, k_cache, v_cache, total, **kw)
        low, _ = kvcache_attention(q, k_cache, v_cache, total, dtype=dtype, **kw)
        err = (out.double() - ref).abs().max().item()
        base = (low.double() - ref).abs().max().item()
        assert err <= 2 * max(base, UNIT_ROUNDOFF[dtype]), "replay %d: error %.3g, low-precision %.3g" % (it, err, base)


def test_poisoned_outputs_are_fully_written():
    # _launch with out and lse pre-filled with NaN: every element must be written (also the
    # split path's combine).
    for splits in (1, 4):
        c = Case(batch=2, heads=(8, 2), s_new=3, append=False, page_size=32, num_splits=splits, seed=5)
        out = torch.full(c.q.shape, float("nan"), dtype=c.dtype, device=DEV)
        lse = torch.full((2, 8, 3), float("nan"), device=DEV)
        kvcache._launch(c.q, c.k_cache, c.v_cache, out, lse, cache_seqlens=c.cache_seqlens, seqlen_new=0,
                        block_table=c.block_table, cache_batch_idx=None, cache_leftpad=None, cu_seqlens_q=None,
                        batch=2, seqlen_q=3, capacity=c.capacity, softmax_scale=0.1, window_left=-1,
                        window_right=0, softcap=0.0, num_splits=splits)
        torch.cuda.synchronize()
        assert not torch.isnan(out).any() and not torch.isnan(lse).any()


def test_paged_varlen_internal_entry_point():
    # kvcache.paged_attention_varlen_into: packed queries of different lengths over pages, as the
    # varlen front end will call it (vLLM's block_table / seqused_k).
    torch.manual_seed(1)
    dtype, hq, hk, d, ps = torch.bfloat16, 8, 2, 128, 16
    q_lens, k_lens = [1, 5, 3], [40, 17, 100]
    max_pages = 8
    num_pages = 3 * max_pages
    k_cache = torch.randn(num_pages, ps, hk, d, device=DEV).to(dtype)
    v_cache = torch.randn(num_pages, ps, hk, d, device=DEV).to(dtype)
    block_table = torch.randperm(num_pages, device=DEV).view(3, max_pages).to(torch.int32)
    cu = torch.tensor([0, 1, 6, 9], dtype=torch.int32, device=DEV)
    q = torch.randn(9, hq, d, device=DEV).to(dtype)
    out = torch.full_like(q, float("nan"))
    lse = torch.full((hq, 9), float("nan"), device=DEV)
    seqused = torch.tensor(k_lens, dtype=torch.int32, device=DEV)
    for splits in (1, 3):
        kvcache.paged_attention_varlen_into(q, k_cache, v_cache, block_table, seqused, cu, 5, out, lse,
                                            softmax_scale=1 / math.sqrt(d), causal=True, num_splits=splits)
        torch.cuda.synchronize()
        for b in range(3):
            qb = q[int(cu[b]):int(cu[b + 1])][None]
            kw = dict(block_table=block_table[b:b + 1], cache_batch_idx=None, cache_leftpad=None,
                      softmax_scale=1 / math.sqrt(d), window=(-1, 0), softcap=0.0)
            ref, ref_lse = kvcache_attention(qb, k_cache, v_cache, [k_lens[b]], **kw)
            low, _ = kvcache_attention(qb, k_cache, v_cache, [k_lens[b]], dtype=dtype, **kw)
            ob = out[int(cu[b]):int(cu[b + 1])][None]
            err = (ob.double() - ref).abs().max().item()
            base = (low.double() - ref).abs().max().item()
            assert err <= 2 * max(base, UNIT_ROUNDOFF[dtype]), "sequence %d: %.3g vs %.3g" % (b, err, base)
            lb = lse[:, int(cu[b]):int(cu[b + 1])]
            assert (lb.double() - ref_lse[0]).abs().max().item() < 1e-3


def test_errors_name_the_argument_on_gpu():
    c = Case(batch=2, page_size=16, capacity=64, seed=2)
    with pytest.raises(ValueError, match="block_table too short"):
        flashcore.flash_attn_with_kvcache(c.q, c.k_cache, c.v_cache, c.k_new, c.v_new,
                                          cache_seqlens=torch.tensor([64, 1], dtype=torch.int32, device=DEV),
                                          block_table=c.block_table)
    with pytest.raises(ValueError, match="block_table names a page outside"):
        bad = c.block_table.clone()
        bad[0, 0] = 10**6
        flashcore.flash_attn_with_kvcache(c.q, c.k_cache, c.v_cache, c.k_new, c.v_new,
                                          cache_seqlens=c.cache_seqlens, block_table=bad)



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


I32 = torch.int32


@pytest.mark.parametrize("layout", ["contig", "paged"])
def test_length_errors_from_the_check_kernel_leave_the_cache_alone(layout):
    # Eager decode-kernel calls take the length facts from one kernel (check_kernel.cuh); every
    # fact must still raise its ValueError, before the append touches the cache.
    paged = layout == "paged"
    c = Case(batch=2, page_size=16 if paged else None, capacity=64, seed=4, batch_idx=not paged)
    lens = c.cache_seqlens
    bad_cases = [(dict(cache_seqlens=torch.tensor([-1, 3], dtype=I32, device=DEV)), "cache_seqlens must be >= 0"),
                 (dict(cache_seqlens=torch.tensor([3, 64], dtype=I32, device=DEV)),
                  "reaches 65 but the cache holds 64"),
                 (dict(cache_leftpad=lens + 1), "cache_leftpad must be <= cache_seqlens"),
                 (dict(cache_leftpad=torch.tensor([-2, 0], dtype=I32, device=DEV)), "cache_leftpad must be >= 0")]
    if paged:
        table = c.block_table.clone()
        table[1, 0] = -3
        bad_cases.append((dict(block_table=table), "block_table names a page outside"))
    else:
        bad_cases.append((dict(cache_batch_idx=torch.tensor([0, 99], dtype=I32, device=DEV)),
                          "cache_batch_idx names a row outside"))
    for over, message in bad_cases:
        kw = dict(cache_seqlens=lens, block_table=c.block_table, cache_batch_idx=c.cache_batch_idx)
        kw.update(over)
        kc, vc = c.k_cache.clone(), c.v_cache.clone()
        with pytest.raises(ValueError, match=message):
            flashcore.flash_attn_with_kvcache(c.q, kc, vc, c.k_new, c.v_new, **kw)
        assert torch.equal(bits(kc), bits(c.k_cache)) and torch.equal(bits(vc), bits(c.v_cache)), message


def test_build_info_lists_decode_kernels():
    got = {(k["arch"], k["dtype"], k["head_dim"]) for k in flashcore.build_info()["decode_kernels"]}
    assert got == {(a, t, d) for a in ("sm80", "sm89", "sm90a") for t in ("fp16", "bf16") for d in (64, 128)}


def test_hf_llama_greedy_decoding_through_the_paged_cache():
    """A Llama-style model from config (random weights, GQA 8/2, head_dim 64), greedy decoding of
    32 tokens after an 8-token prompt (batch 2). flashcore's path: an attention function that
    keeps its own paged KV cache per layer and calls flash_attn_with_kvcache with the new keys
    (prefill: a chunk of 8, then one token per step); HF's own cache only supplies the new keys.
    The flashcore run is teacher-forced on the sdpa run's tokens, and at every step its logits
    must be within 2x the bf16 sdpa run's distance from a float32 sdpa run (+0.01), max-abs."""
    transformers = pytest.importorskip("transformers")
    from transformers import LlamaConfig, LlamaForCausalLM
    try:
        from transformers import AttentionInterface
    except ImportError:  # pragma: no cover - depends on the transformers version
        from transformers.modeling_utils import AttentionInterface
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=512, hidden_size=512, intermediate_size=1024, num_hidden_layers=2,
                         num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=256)
    config._attn_implementation = "sdpa"
    model = LlamaForCausalLM(config).cuda().eval()
    model32 = model.float()
    import copy
    model16 = copy.deepcopy(model32).to(torch.bfloat16)
    batch, prompt_len, steps, ps, max_pages = 2, 8, 32, 16, 4
    prompt = torch.randint(0, 512, (batch, prompt_len), device=DEV)

    state = {"calls": 0}

    def flashcore_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        state["calls"] += 1
        layer = module.layer_idx
        s_new = query.shape[2]
        hk, d = key.shape[1], key.shape[3]
        if layer not in state:
            num_pages = batch * max_pages + 2
            kc = torch.full((num_pages, ps, hk, d), float("nan"), dtype=key.dtype, device=DEV)
            bt = torch.randperm(num_pages, device=DEV)[:batch * max_pages].view(batch, max_pages).to(torch.int32)
            state[layer] = [kc, kc.clone(), bt, torch.zeros(batch, dtype=torch.int32, device=DEV)]
        kc, vc, bt, lens = state[layer]
        k_new = key[:, :, -s_new:].transpose(1, 2).contiguous()
        v_new = value[:, :, -s_new:].transpose(1, 2).contiguous()
        out = flashcore.flash_attn_with_kvcache(query.transpose(1, 2), kc, vc, k_new, v_new, cache_seqlens=lens,
                                                block_table=bt, softmax_scale=scaling, causal=True)
        lens += s_new
        return out, None

    # (A name without "flash": transformers treats those as its flash-attention kernels.)
    AttentionInterface.register("fc_kvcache_test", flashcore_attention)

    def run(m, tokens, impl):
        """Logits of every step: the prompt, then one token at a time from `tokens` (teacher forcing)."""
        try:
            m.set_attn_implementation(impl)
        except (AttributeError, ValueError):  # versions without it, or that refuse custom names here
            m.config._attn_implementation = impl
        for key in [k for k in state if k != "calls"]:
            del state[key]
        out = m(prompt, use_cache=True)
        logits = [out.logits[:, -1].float()]
        past = out.past_key_values
        for i in range(steps):
            nxt = tokens[:, i:i + 1] if tokens is not None else logits[-1].argmax(-1, keepdim=True)
            out = m(nxt, past_key_values=past, use_cache=True)
            past = out.past_key_values
            logits.append(out.logits[:, -1].float())
        return logits

    with torch.no_grad():
        ref16 = run(model16, None, "sdpa")
        tokens = torch.stack([lg.argmax(-1) for lg in ref16[:-1]], dim=1)  # the sdpa run's greedy tokens
        ref32 = run(model32, tokens, "sdpa")
        got = run(model16, tokens, "fc_kvcache_test")
    assert state["calls"] >= (steps + 1) * config.num_hidden_layers, "flashcore's attention was not used"
    same = 0
    for i, (g, r16, r32) in enumerate(zip(got, ref16, ref32)):
        assert torch.isfinite(g).all()
        noise = (r16 - r32).abs().max().item()
        err = (g - r32).abs().max().item()
        assert err <= 2 * noise + 1e-2, "step %d: logits off by %.3g (bf16 sdpa: %.3g)" % (i, err, noise)
        same += int(torch.equal(g.argmax(-1), r16.argmax(-1)))
    print("greedy tokens equal to sdpa's at %d of %d steps" % (same, len(got)))


SANITIZER_CASE = textwrap.dedent("""
    import torch, flashcore
    torch.manual_seed(0)
    dt, ps, hk, d = torch.bfloat16, 16, 2, 128
    kc = torch.randn(12, ps, hk, d, device="cuda").to(dt)
    vc = torch.randn(12, ps, hk, d, device="cuda").to(dt)
    bt = torch.randperm(12, device="cuda").view(2, 6).to(torch.int32)
    q = torch.randn(2, 3, 8, d, device="cuda").to(dt)
    k = torch.randn(2, 3, hk, d, device="cuda").to(dt)
    v = torch.randn(2, 3, hk, d, device="cuda").to(dt)
    lens = torch.tensor([40, 77], dtype=torch.int32, device="cuda")
    for order in ("key", "address"):
        flashcore.kvcache._set_forced_page_order(order)
        for splits in (1, 3):
            out, lse = flashcore.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, block_table=bt,
                                                         causal=True, num_splits=splits, return_softmax_lse=True)
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_compute_sanitizer_paged_case(tool, tmp_path):
    run_sanitizer(tool, SANITIZER_CASE, "decode", tmp_path)


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
