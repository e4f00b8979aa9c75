"""The KV-cache GPU suites' shared pieces (tests/gpu_kvcache_test.py: the decode kernel and the
cache's API; tests/gpu_paged_forward_test.py: calls of prefill size on the Hopper forward): one
call's inputs and its checks against the float64 oracle (Case), the case matrix, and the fixtures
that force a page order or a kernel.

Oracle: float64 attention over the cache (tests/kvcache_reference.py, independent of the
implementation) on fresh random inputs; flashcore's max error must be at most 2x that of the same
math in the inputs' dtype (FlashAttention's rule; floor: one unit roundoff of the output scale),
NaN never passes. The cache after the call must equal the expected cache exactly (rotary-rotated
new keys: within one rounding, since the oracle rotates in float64), and every position the call
must not touch -- past the lengths, before the leftpad, unused pages and rows -- holds a NaN
sentinel before and after (compared bitwise): a kernel that read one of them would turn the
output NaN.
"""

import contextlib
import itertools
import math
import random

import pytest
import torch

import flashcore
from flashcore import _attention, kvcache
from kvcache_reference import expected_cache, kvcache_attention, rotary64
from oracle_constants import UNIT_ROUNDOFF
DEV = "cuda"


def bits(t):
    return t.view(torch.int16)


# The extra columns of widened new keys / values: finite and unlike the caches' NaN, so an append
# that copied past the head dim would change the caches' extra columns (compared bitwise).
NEW_KV_MARKER = 3.0


def _widened(t, extra, fill):
    """t's values as the [..., :d] view of a buffer `extra` columns wider, those columns `fill`."""
    buf = torch.full(t.shape[:-1] + (t.shape[-1] + extra,), fill, dtype=t.dtype, device=t.device)
    buf[..., :t.shape[-1]] = t
    return buf[..., :t.shape[-1]]


def _clone_keeping_layout(t):
    """A clone with t's strides (a view of a wider buffer stays one: Tensor.clone densifies it)."""
    if t._base is None:
        return t.clone()
    base = t._base.clone(memory_format=torch.preserve_format)
    assert base.stride() == t._base.stride(), "the base of a widened tensor is dense"
    return base.as_strided(t.shape, t.stride(), t.storage_offset() - t._base.storage_offset())


class Case:
    """One call's inputs, built from a dict of choices."""

    def __init__(self, dtype=torch.bfloat16, d=128, page_size=None, s_new=1, heads=(8, 2), append=True,
                 causal=True, window=(-1, -1), softcap=0.0, rotary=None, num_splits=0, lse=True,
                 batch_idx=False, leftpad=False, batch=3, capacity=300, wide=0, seed=0):
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
        if wide:
            # q, the new keys / values and the caches as [..., :d] views of buffers `wide` columns
            # wider. q's and the caches' extra columns are NaN: a kernel that read a column past
            # the head dim (the predicated ones of a wider kernel) would make the output NaN. The
            # new keys' / values' are NEW_KV_MARKER: an append that copied past the head dim
            # would change the caches' extra columns (run compares them bitwise).
            self.q, self.k_cache, self.v_cache = (_widened(t, wide, float("nan"))
                                                  for t in (self.q, self.k_cache, self.v_cache))
            if append:
                self.k_new, self.v_new = (_widened(t, wide, NEW_KV_MARKER) for t in (self.k_new, self.v_new))

    def window_pair(self):
        return (self.window[0], 0) if self.causal else self.window

    def run(self):
        """Calls flashcore (on clones of the caches) and checks it; returns (out error, bound)."""
        kc, vc = _clone_keeping_layout(self.k_cache), _clone_keeping_layout(self.v_cache)
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

        if self.wide:
            for name, got, before in (("k_cache", kc, self.k_cache), ("v_cache", vc, self.v_cache)):
                assert torch.equal(bits(got._base[..., self.d:]), bits(before._base[..., self.d:])), \
                    "%s: a column past the head dim was written" % name

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


# Head dims other than 64 and 128: 256's own kernel and dims that run on a larger one with their
# columns past them predicated (64: 8..56; 128: 72..120; 256: 136..248): every layout kind, decode
# (16-row) and 64-row query blocks, split and not.
OTHER_HEAD_DIMS = [32, 40, 80, 96, 120, 136, 192, 200, 256]


def wide_columns(d):
    """NaN columns past the head dim in the other-dims cases: up to the kernel's head dim where it
    is predicated, 8 past 256 (no kernel reads there either)."""
    return next(k for k in (64, 128, 256, 264) if k > d) - d if d not in (64, 128) else 0


def other_head_dims_matrix():
    cases = []
    layouts = [None, 16, 64, 256]
    for i, (di, li, si) in enumerate(itertools.product(range(len(OTHER_HEAD_DIMS)), range(len(layouts)), range(2))):
        layout = layouts[li]
        feats = dict(FEATURES[i % len(FEATURES)])
        if feats.get("batch_idx") and layout is not None:
            feats = dict(leftpad=True)
        # dtype and split count rotate with the head dim too, so that each head dim sees both dtypes
        # with both query-block kernels (S_new 1 and 7) and split counts differ between layouts.
        d = OTHER_HEAD_DIMS[di]
        cases.append(dict(dtype=[torch.bfloat16, torch.float16][(di + li + si) % 2], d=d,
                          page_size=layout, s_new=[1, 7][si], heads=HEADS[i % len(HEADS)],
                          num_splits=SPLITS[(di + li + 2 * si) % len(SPLITS)], wide=wide_columns(d), seed=1000 + i,
                          **feats))
    return cases


OTHER_DIMS = other_head_dims_matrix()


@contextlib.contextmanager
def forced(arch=None, page_order=None):
    """The calls inside run on kernel library `arch` (None: this GPU's; "sm80_ptx": the portable
    PTX one) and visit their pages in `page_order` (None: each call picks; "key" / "address",
    kernels/decode/tile_policy.h decode_page_sort), both restored afterwards."""
    _attention._set_forced_arch(arch)
    kvcache._set_forced_page_order(page_order)
    try:
        yield
    finally:
        kvcache._set_forced_page_order(None)
        _attention._set_forced_arch(None)


@pytest.fixture
def page_order(request):
    """Forces the order paged decode calls visit their pages in (by rule only some split calls
    sort), restored afterwards."""
    with forced(page_order=request.param):
        yield request.param


PAGED = [c for c in MATRIX if c["page_size"] is not None]


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


ON_SM90A = torch.cuda.is_available() and flashcore._attention._arch_for(0) == "sm90a"  # the library calls run on
FORWARD_PAGED = [c for c in PAGED if c["page_size"] % kvcache.PAGED_FORWARD_PAGE_MULTIPLE == 0 and not c.get("leftpad")]
