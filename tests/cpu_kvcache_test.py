"""CPU suite for flashcore.flash_attn_with_kvcache: the decode kernels are registered, the split
plan follows its rules, every bad input gets a ValueError/TypeError (NotImplementedError for
alibi_slopes) naming the argument before any device work, and the float64 oracle of the GPU suite
agrees with torch's math attention."""

import math
import sys
import types
from unittest import mock

import pytest
import torch
import torch.nn.functional as F

import flashcore
from flashcore import _C, kvcache
import kvcache_case
from kvcache_reference import expected_cache, kvcache_attention, rotary64

I32 = torch.int32


def test_build_info_lists_the_decode_kernels():
    got = [(k["arch"], k["dtype"], k["head_dim"]) for k in flashcore.build_info()["decode_kernels"]]
    want = {(a, t, d) for a in ("sm80", "sm89", "sm90a", "sm80_ptx") for t in ("fp16", "bf16") for d in (64, 128, 256)}
    assert set(got) == want and len(got) == len(want)


def plan(**kw):
    args = dict(arch="sm90a", head_dim=128, batch=1, heads=32, heads_kv=32, seqlen_q=1, max_seqlen_k=65536,
                num_sms=132, num_splits=0)
    args.update(kw)
    return _C.decode_plan(**args)


def test_split_plan():
    # Few query blocks over a long cache, contiguous or paged (the plan does not depend on the
    # layout): split up to one CTA per SM, 4 splits for 32 query blocks (128 CTAs), 16 for 8 (128).
    p = plan()
    assert p["block_m"] == 16 and p["max_splits"] == 128
    assert p["num_splits"] == 132 // 32
    assert plan(heads_kv=8, max_seqlen_k=131072)["num_splits"] == 132 // 8
    assert plan(heads=8, heads_kv=1)["num_splits"] == 128  # one query block: the bound
    # Enough blocks already (B32 H32): no split. An explicit count is taken, capped at the bound.
    assert plan(batch=32)["num_splits"] == 1
    assert plan(num_splits=1)["num_splits"] == 1
    assert plan(num_splits=7)["num_splits"] == 7
    assert plan(num_splits=1000)["num_splits"] == 128
    # A short cache is not split into blocks of fewer than 4 key blocks each.
    assert plan(max_seqlen_k=256)["num_splits"] == 1
    # GQA packing: 4 query heads per kv head and 7 tokens are 28 rows -> the 64-row block.
    assert plan(heads_kv=8, seqlen_q=7)["block_m"] == 64
    assert plan(heads_kv=8, seqlen_q=4)["block_m"] == 16
    # The plan depends on shapes only, so a captured step replays with any lengths.
    assert plan() == plan()


def test_plan_names_the_kernel_head_dim():
    # A head dim runs on the smallest compiled decode head dim >= it (the split scratch's row
    # width), with that kernel's tiles: 64 keys a block at 128, 128 at 64.
    dims = (8, 40, 64, 72, 96, 128, 136, 200, 256, 264)
    assert [plan(head_dim=d)["kernel_head_dim"] for d in dims] == [64, 64, 64, 128, 128, 128, 256, 256, 256, 0]
    assert plan(head_dim=96)["block_n"] == 64 and plan(head_dim=40)["block_n"] == 128
    # 256: 64-key blocks (64 KiB of K and V a stage); on sm89 32-key blocks and 64-row query blocks only.
    assert plan(head_dim=200)["block_n"] == 64 and plan(head_dim=200)["block_m"] == 16
    for arch in ("sm80", "sm89"):  # within 99 KiB a CTA (8.6 / 8.7 GPUs run the sm80 library)
        assert plan(arch=arch, head_dim=256)["block_n"] == 32 and plan(arch=arch, head_dim=256)["block_m"] == 64
    # The kernel of the call's dtype; both dtypes have the same head dims.
    assert plan(head_dim=96, dtype="fp16")["kernel_head_dim"] == plan(head_dim=96, dtype="bf16")["kernel_head_dim"] == 128
    with pytest.raises(ValueError, match="head_dim must be a positive multiple of 8, got 100"):
        plan(head_dim=100)


def test_the_launch_path_plans_with_the_call_dtype():
    # kvcache._launch's call without its last argument (the HBM bandwidth; 0: the slower GPUs' rule):
    # (splits, sort entries, sort CTAs, lists, kernel head dim).
    from flashcore._attention import _DTYPE_NAMES
    for dtype in (torch.float16, torch.bfloat16):
        got = kvcache._plan("sm90a", 96, 1, 32, 8, 1, 131072, 132, 0, 0, False, _DTYPE_NAMES[dtype])
        assert got == (16, 0, 0, 1, 128), got
    assert kvcache._plan("sm90a", 200, 1, 32, 8, 1, 131072, 132, 0, 16, False, "fp16")[4] == 256


def test_page_sort_plan():
    # Paged split decode calls on sm90a may visit their pages in address order: scratch of (batch,
    # splits, 1024) int64 entries (kernels/decode/tile_policy.h decode_page_sort), where the sort grid
    # fits on the SMs the decode grid leaves idle, and by rule only pages of at most
    # decode_sort_max_page_size keys -- below 4.4 TB/s of HBM (hbm_bytes_per_s 0 here: an H100's
    # rule) 16 at kernel head dim 64, none at 128 and 256 (with the TMA walk key order measured ahead
    # there; the faster GPUs' rule: test_page_sort_rule_by_hbm_bandwidth).
    d64 = dict(head_dim=64)
    assert plan(**d64)["sorted_pages_entries"] == 0  # contiguous
    p = plan(page_size=16, **d64)  # 4 splits x 32 heads = 128 decode CTAs: 4 SMs idle, 4 lists
    assert (p["sorted_pages_entries"], p["page_sort_ctas"], p["page_sort_lists_per_cta"]) == (4 * 1024, 4, 1)
    p = plan(page_size=16, heads_kv=8, max_seqlen_k=131072, **d64)  # 16 lists on the 4 idle SMs
    assert (p["sorted_pages_entries"], p["page_sort_ctas"], p["page_sort_lists_per_cta"]) == (16 * 1024, 4, 4)
    # 128 splits of one kv head: 128 lists would need 32 sort CTAs beside the decode grid's 128.
    assert plan(page_size=16, heads=8, heads_kv=1, **d64)["sorted_pages_entries"] == 0
    # The page size rule: d64 pages of 32 and 64 in key order; d128 and d256 every page size;
    # forced, pages up to the address-order block are sorted (d128: 128), wider ones never.
    assert plan(page_size=32, **d64)["sorted_pages_entries"] == 0
    assert plan(page_size=64, **d64)["sorted_pages_entries"] == 0
    for page_size in (16, 64, 128, 256):
        assert plan(page_size=page_size)["sorted_pages_entries"] == 0
        assert plan(page_size=page_size, head_dim=256)["sorted_pages_entries"] == 0
    with kvcache_case.forced(page_order="address"):
        assert plan(page_size=16)["page_sort_ctas"] > 0
        assert plan(page_size=128)["page_sort_ctas"] > 0
        assert plan(page_size=256)["sorted_pages_entries"] == 0
        # The address-order walk's key block (kernels/decode/tile_policy.h decode_sorted_tile_shape):
        # 128 at head dims up to 128 on sm90a, bounding the sorted pages a split: 70000 keys in 4
        # splits are 1000 pages of 16 past 12 head blocks of 128 (1048 with blocks of 64: not sorted).
        p = plan(page_size=16, max_seqlen_k=70000)
        assert (p["sorted_pages_entries"], p["page_sort_ctas"], p["page_sort_lists_per_cta"]) == (4 * 1024, 4, 1)
    assert plan(page_size=16)["sorted_block_n"] == 128 and plan(page_size=16, head_dim=256)["sorted_block_n"] == 64
    assert plan(page_size=16, leftpad=True, **d64)["sorted_pages_entries"] == 0
    assert plan(page_size=16, arch="sm80", **d64)["sorted_pages_entries"] == 0
    assert plan(page_size=16, batch=32, **d64)["sorted_pages_entries"] == 0  # no split
    assert plan(page_size=16, max_seqlen_k=131072, **d64)["sorted_pages_entries"] == 0  # 1952 pages a split
    assert plan(page_size=16, heads_kv=8, seqlen_q=7, **d64)["sorted_pages_entries"] == 0  # 28 rows: not decode


def test_page_sort_rule_by_hbm_bandwidth():
    # From 4.4 TB/s of HBM (an H200's 4.8; kernels/decode/tile_policy.h decode_sort_max_page_size) the
    # rule sorts pages up to 64 keys at kernel head dim 64 and 16 at 128; none at 256. Below it (an
    # H100's 3.35, GPUs rated near 4.0, or 0: torch did not report the memory clock) 16 at 64 only.
    def sorted_pages(head_dim, page_size, hbm):
        return plan(head_dim=head_dim, page_size=page_size, hbm_bytes_per_s=hbm)["page_sort_ctas"] > 0
    fast, slow = 4.8e12, 3.35e12
    assert [sorted_pages(64, ps, fast) for ps in (16, 32, 64, 128)] == [True, True, True, False]
    assert [sorted_pages(128, ps, fast) for ps in (16, 32, 64)] == [True, False, False]
    assert [sorted_pages(256, ps, fast) for ps in (16, 32, 64)] == [False, False, False]
    for hbm in (slow, 4.0e12, 0.0):
        assert [sorted_pages(64, ps, hbm) for ps in (16, 32, 64)] == [True, False, False]
        assert [sorted_pages(128, ps, hbm) for ps in (16, 32)] == [False, False]
    assert not sorted_pages(128, 16, 4.39e12) and sorted_pages(128, 16, 4.4e12)
    # _hbm_bytes_per_s: the bandwidth from torch's memory clock (kHz, double data rate) and bus width.
    def bandwidth_of(props):
        with mock.patch.object(kvcache.torch.cuda, "get_device_properties", return_value=props):
            kvcache._hbm_bytes_per_s.cache_clear()
            try:
                return kvcache._hbm_bytes_per_s(0)
            finally:
                kvcache._hbm_bytes_per_s.cache_clear()
    h200 = types.SimpleNamespace(memory_clock_rate=3_201_000, memory_bus_width=6016)
    assert abs(bandwidth_of(h200) - 4.814e12) < 1e9
    assert bandwidth_of(types.SimpleNamespace()) == 0.0


def cpu_case(**over):
    args = dict(q=torch.randn(2, 1, 8, 128).bfloat16(), k_cache=torch.zeros(2, 64, 2, 128).bfloat16(),
                v_cache=torch.zeros(2, 64, 2, 128).bfloat16(), k=torch.randn(2, 1, 2, 128).bfloat16(),
                v=torch.randn(2, 1, 2, 128).bfloat16(), cache_seqlens=torch.tensor([3, 5], dtype=I32))
    args.update(over)
    return args


def paged(**over):
    args = cpu_case(k_cache=torch.zeros(8, 16, 2, 128).bfloat16(), v_cache=torch.zeros(8, 16, 2, 128).bfloat16(),
                    block_table=torch.arange(8, dtype=I32).view(2, 4))
    args.update(over)
    return args


BAD = [
    (dict(alibi_slopes=torch.ones(8)), NotImplementedError, "alibi_slopes"),
    (dict(q=torch.randn(2, 1, 8, 128)), TypeError, "q must be float16 or bfloat16"),
    (dict(q=torch.randn(2, 8, 128).bfloat16()), ValueError, "q must be 4-D"),
    (dict(q=torch.randn(2, 1, 8, 264).bfloat16()), ValueError,
     r"flash_attn_with_kvcache: head_dim must be a multiple of 8 from 8 to 256, got 264 \(head dims above 256 have "
     r"no kernels\) \(q's last dimension\)"),
    (dict(q=torch.randn(2, 1, 8, 100).bfloat16()), ValueError, "head_dim must be a multiple of 8 from 8 to 256"),
    # A head dim below a kernel's passes the checks (then runs on it, predicated): 96 on the 128 kernel.
    (dict(q=torch.randn(2, 1, 8, 200).bfloat16(), k=torch.randn(2, 1, 2, 200).bfloat16(),
          v=torch.randn(2, 1, 2, 200).bfloat16(), k_cache=torch.zeros(2, 64, 2, 200).bfloat16(),
          v_cache=torch.zeros(2, 64, 2, 200).bfloat16()), ValueError, "must be CUDA tensors"),
    (dict(q=torch.randn(2, 1, 8, 96).bfloat16(), k=torch.randn(2, 1, 2, 96).bfloat16(),
          v=torch.randn(2, 1, 2, 96).bfloat16(), k_cache=torch.zeros(2, 64, 2, 96).bfloat16(),
          v_cache=torch.zeros(2, 64, 2, 96).bfloat16()), ValueError, "must be CUDA tensors"),
    (dict(k_cache=torch.zeros(2, 64, 2, 128).half()), TypeError, "k_cache must have q's dtype"),
    (dict(v_cache=torch.zeros(2, 64, 2, 128)), TypeError, "v_cache must be float16 or bfloat16"),
    (dict(k_cache=torch.zeros(2, 64, 3, 128).bfloat16(), v_cache=torch.zeros(2, 64, 3, 128).bfloat16()),
     ValueError, "multiple of the cache's kv heads"),
    (dict(v_cache=torch.zeros(2, 32, 2, 128).bfloat16()), ValueError, "k_cache and v_cache must have one shape"),
    (dict(k=None), ValueError, "k and v must be given together"),
    (dict(k=torch.randn(2, 1, 2, 128).half()), TypeError, "k must have q's dtype"),
    (dict(v=torch.randn(2, 1, 4, 128).bfloat16()), ValueError, "k and v must be"),
    (dict(cache_seqlens=torch.tensor([3, 5])), TypeError, "cache_seqlens must be int32"),
    (dict(cache_seqlens=torch.tensor([3], dtype=I32)), ValueError, "cache_seqlens must have one entry"),
    (dict(cache_seqlens=3.0), TypeError, "cache_seqlens must be an int"),
    (dict(cache_seqlens=64), ValueError, r"cache_seqlens \(64\) \+ S_new \(1\) exceeds"),
    (dict(cache_seqlens=torch.tensor([3, 64], dtype=I32)), ValueError, "cache_seqlens \\+ S_new reaches 65"),
    (dict(cache_seqlens=torch.tensor([-1, 5], dtype=I32)), ValueError, "cache_seqlens must be >= 0"),
    (dict(cache_seqlens=None), ValueError, "cache_seqlens is needed"),
    (dict(cache_batch_idx=torch.tensor([0, 1])), TypeError, "cache_batch_idx must be int32"),
    (dict(cache_batch_idx=torch.tensor([0, 2], dtype=I32)), ValueError, "cache_batch_idx names a row outside"),
    (dict(cache_leftpad=torch.tensor([4, 0], dtype=I32)), ValueError, "cache_leftpad must be <= cache_seqlens"),
    (dict(cache_leftpad=torch.tensor([0.0, 0.0])), TypeError, "cache_leftpad must be int32"),
    (dict(window_size=(-1,)), TypeError, "window_size must be a pair"),
    (dict(softcap=-1.0), ValueError, "softcap"),
    (dict(num_splits=-1), ValueError, "num_splits"),
    (dict(rotary_cos=torch.ones(80, 64).bfloat16()), ValueError, "rotary_cos and rotary_sin must be given together"),
    (dict(rotary_cos=torch.ones(80, 80).bfloat16(), rotary_sin=torch.ones(80, 80).bfloat16()), ValueError,
     "rotary_dim <= head_dim"),
    (dict(rotary_cos=torch.ones(4, 64).bfloat16(), rotary_sin=torch.ones(4, 64).bfloat16()), ValueError,
     "rotary_cos has 4 positions"),
    (dict(k=None, v=None, rotary_cos=torch.ones(80, 64).bfloat16(), rotary_sin=torch.ones(80, 64).bfloat16()),
     ValueError, "rotary_cos/rotary_sin need the new k"),
    (dict(k_cache=torch.zeros(3, 64, 2, 128).bfloat16(), v_cache=torch.zeros(3, 64, 2, 128).bfloat16()),
     ValueError, "pass cache_batch_idx"),
    (dict(k_cache=torch.zeros(2, 64, 2, 256).bfloat16()[..., ::2], v_cache=torch.zeros(2, 64, 2, 128).bfloat16()),
     ValueError, "k_cache must have a unit stride"),
    (dict(), ValueError, "must be CUDA tensors"),  # every check passed; CPU tensors stop here
]


def test_forced_page_order_takes_the_order_names_only():
    with pytest.raises(ValueError, match="forced page order must be one of"):
        kvcache._set_forced_page_order("random")
    for order in ("key", "address", None):  # reaches the extension: no GPU needed
        kvcache._set_forced_page_order(order)


@pytest.mark.parametrize("kwargs,exc,message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_raises_a_clear_error(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        flashcore.flash_attn_with_kvcache(**cpu_case(**kwargs))


BAD_PAGED = [
    (dict(block_table=torch.arange(8).view(2, 4)), TypeError, "block_table must be int32"),
    (dict(block_table=torch.arange(8, dtype=I32)), ValueError, "block_table must be 2-D"),
    (dict(block_table=torch.arange(4, dtype=I32).view(1, 4)), ValueError, "block_table must have one row per batch"),
    (dict(block_table=torch.arange(4, dtype=I32).view(2, 2), cache_seqlens=torch.tensor([3, 40], dtype=I32)),
     ValueError, "block_table too short"),
    (dict(block_table=torch.tensor([[0, 1, 2, 3], [4, 5, 6, 9]], dtype=I32),
          cache_seqlens=torch.tensor([3, 60], dtype=I32)), ValueError, "block_table names a page outside"),
    (dict(cache_batch_idx=torch.tensor([0, 1], dtype=I32)), ValueError, "cache_batch_idx is for contiguous"),
    (dict(), ValueError, "must be CUDA tensors"),
]


@pytest.mark.parametrize("kwargs,exc,message", BAD_PAGED, ids=[m for _, _, m in BAD_PAGED])
def test_bad_paged_input_raises_a_clear_error(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        flashcore.flash_attn_with_kvcache(**paged(**kwargs))


def test_unused_block_table_entries_may_be_anything():
    # Only the pages the lengths reach are checked (vLLM leaves the rest as -1 or stale).
    bt = torch.tensor([[0, -1, -1, -1], [4, 5, 77, -1]], dtype=I32)
    with pytest.raises(ValueError, match="must be CUDA tensors"):
        flashcore.flash_attn_with_kvcache(**paged(block_table=bt, cache_seqlens=torch.tensor([3, 20], dtype=I32)))


def test_varlen_entry_point_checks():
    q = torch.randn(5, 8, 128).bfloat16()
    kc = torch.zeros(8, 16, 2, 128).bfloat16()
    bt = torch.arange(8, dtype=I32).view(2, 4)
    cu = torch.tensor([0, 2, 5], dtype=I32)
    with pytest.raises(ValueError, match="block_table is required"):
        kvcache.paged_attention_varlen_into(q, kc, kc, None, torch.tensor([3, 4], dtype=I32), cu, 3,
                                            torch.empty_like(q), softmax_scale=0.1)
    with pytest.raises(ValueError, match="seqused_k must have one entry"):
        kvcache.paged_attention_varlen_into(q, kc, kc, bt, torch.tensor([3], dtype=I32), cu, 3,
                                            torch.empty_like(q), softmax_scale=0.1)
    with pytest.raises(ValueError, match="lse must be"):
        kvcache.paged_attention_varlen_into(q, kc, kc, bt, torch.tensor([3, 4], dtype=I32), cu, 3,
                                            torch.empty_like(q), torch.empty(5, 8), softmax_scale=0.1)


# --- The GPU suite's oracle, checked here against torch's math attention ---------------------

@pytest.mark.parametrize("page_size", [None, 4])
@pytest.mark.parametrize("causal,softcap", [(False, 0.0), (True, 0.0), (True, 5.0)])
def test_oracle_matches_torch_math_attention(page_size, causal, softcap):
    torch.manual_seed(0)
    b, sq, hq, hk, d, sk = 2, 3, 4, 2, 16, 11
    q = torch.randn(b, sq, hq, d, dtype=torch.float64)
    k = torch.randn(b, sk, hk, d, dtype=torch.float64)
    v = torch.randn(b, sk, hk, d, dtype=torch.float64)
    if page_size is None:
        kc, vc, bt = k, v, None
    else:  # the same keys scattered over shuffled pages
        pages = -(-sk // page_size)
        perm = torch.randperm(b * pages)
        bt = perm.view(b, pages).to(I32)
        kc = torch.zeros(b * pages, page_size, hk, d, dtype=torch.float64)
        vc = torch.zeros_like(kc)
        for i in range(b):
            for j in range(sk):
                kc[bt[i, j // page_size], j % page_size] = k[i, j]
                vc[bt[i, j // page_size], j % page_size] = v[i, j]
    out, lse = kvcache_attention(q, kc, vc, [sk, sk], block_table=bt, cache_batch_idx=None, cache_leftpad=None,
                                 softmax_scale=0.3, window=(-1, 0 if causal else -1), softcap=softcap)
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k.repeat_interleave(2, 2), v.repeat_interleave(2, 2)))
    s = qt @ kt.transpose(-1, -2) * 0.3
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    if causal:  # bottom-right
        mask = torch.ones(sq, sk, dtype=torch.bool).tril(diagonal=sk - sq)
        s = s.masked_fill(~mask, -math.inf)
    want = (torch.softmax(s, -1) @ vt).transpose(1, 2)
    assert torch.allclose(out, want, atol=1e-12)
    assert torch.allclose(lse, torch.logsumexp(s, -1), atol=1e-12)


def test_oracle_rotary_and_expected_cache():
    torch.manual_seed(1)
    x = torch.randn(1, 2, 1, 8, dtype=torch.float64)
    ang = torch.rand(10, 4, dtype=torch.float64)
    pos = torch.tensor([[3, 4]])
    inter = rotary64(x, ang.cos(), ang.sin(), pos, True)
    neox = rotary64(x, ang.cos(), ang.sin(), pos, False)
    a = ang[3]
    assert torch.allclose(inter[0, 0, 0, 0:2], torch.stack([x[0, 0, 0, 0] * a[0].cos() - x[0, 0, 0, 1] * a[0].sin(),
                                                            x[0, 0, 0, 0] * a[0].sin() + x[0, 0, 0, 1] * a[0].cos()]))
    assert torch.allclose(neox[0, 0, 0, [0, 4]], torch.stack([x[0, 0, 0, 0] * a[0].cos() - x[0, 0, 0, 4] * a[0].sin(),
                                                              x[0, 0, 0, 0] * a[0].sin() + x[0, 0, 0, 4] * a[0].cos()]))
    # Rotation keeps norms; the paged expected cache lands in the right page.
    assert torch.allclose(inter.norm(), x.norm()) and torch.allclose(neox.norm(), x.norm())
    cache = torch.zeros(4, 2, 1, 1)
    bt = torch.tensor([[2, 0, 3]], dtype=I32)
    new = torch.ones(1, 2, 1, 1)
    got = expected_cache(cache, new, [1], bt, None)  # positions 1 and 2: page 2 row 1, page 0 row 0
    assert got[2, 1].item() == 1 and got[0, 0].item() == 1 and got.sum().item() == 2


def test_kvcache_rotary_matches_the_oracle_on_cpu():
    # The implementation's rotary (float32, rounded once) against the float64 oracle's.
    torch.manual_seed(2)
    x = torch.randn(2, 3, 4, 64).bfloat16()
    ang = torch.rand(20, 16, dtype=torch.float64)
    pos = torch.randint(0, 17, (2, 3))
    for inter in (True, False):
        got = kvcache._apply_rotary(x, ang.cos().bfloat16(), ang.sin().bfloat16(), pos, inter)
        want = rotary64(x, ang.cos().bfloat16(), ang.sin().bfloat16(), pos, inter).bfloat16()
        assert torch.equal(got[..., 32:], x[..., 32:])  # beyond rotary_dim: untouched
        assert (got.float() - want.float()).abs().max().item() <= 2**-7 * want.float().abs().max().item()



def test_which_calls_run_on_the_hopper_forward(monkeypatch):
    # kvcache._prefill_on_forward_kernel: sm90a only; contiguous caches and pages of a multiple of
    # 16; no cache_batch_idx / cache_leftpad; S_new_q (dense) or the mean query rows a sequence
    # (packed) >= 128 for contiguous caches, >= 96 for pages of 16, >= 64 for larger pages; the
    # test-only switch overrides the row rule only.
    assert kvcache.PAGED_FORWARD_PAGE_MULTIPLE == _C.paged_kv_page_multiple == 16  # kernels/flash_fwd_api.h
    arch = ["sm90a"]
    monkeypatch.setattr(kvcache, "_arch_for", lambda device: arch[0])
    on = kvcache._prefill_on_forward_kernel
    q = lambda s: torch.empty(2, s, 4, 64)
    idx = torch.zeros(2, dtype=I32)
    assert on(q(128), None, None, None) and not on(q(127), None, None, None)
    assert on(q(96), 16, None, None) and not on(q(95), 16, None, None)
    assert on(q(64), 32, None, None) and on(q(64), 48, None, None) and on(q(64), 256, None, None)
    assert not on(q(63), 32, None, None) and not on(q(63), 256, None, None)
    assert not on(q(300), 8, None, None) and not on(q(300), 24, None, None)
    assert not on(q(300), None, idx, None) and not on(q(300), 16, None, idx)
    assert on(q(1), 16, None, None, mean_rows=96) and not on(q(1), 16, None, None, mean_rows=95.5)
    assert on(q(1), 64, None, None, mean_rows=64) and not on(q(300), 64, None, None, mean_rows=63.5)
    try:
        kvcache._set_forced_forward(True)
        assert on(q(1), 16, None, None) and not on(q(1), 8, None, None)
        kvcache._set_forced_forward(False)
        assert not on(q(300), 16, None, None)
    finally:
        kvcache._set_forced_forward(None)
    for arch[0] in ("sm80", "sm89", "sm80_ptx"):  # the mma.sync decode kernel takes them all
        assert not on(q(300), None, None, None) and not on(q(300), 16, None, None)


# --- torch.compile: the entry points as custom ops (py/flashcore/_kvcache_ops.py) ------------------

def _meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, device="meta", dtype=dtype)


def test_compiled_decode_step_is_one_custom_op_with_fullgraph():
    """Dynamo traces flash_attn_with_kvcache (fullgraph) into one flashcore::kvcache_attention call;
    meta tensors run its fake implementation (output shapes; lse only when asked for)."""
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def step(q, kc, vc, k, v, lens):
        return flashcore.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, causal=True,
                                                 return_softmax_lse=True)

    q, kc, vc = _meta(2, 1, 8, 96), _meta(2, 64, 2, 96), _meta(2, 64, 2, 96)
    k, v, lens = _meta(2, 1, 2, 96), _meta(2, 1, 2, 96), _meta(2, dtype=I32)
    out, lse = torch.compile(step, fullgraph=True, backend=backend)(q, kc, vc, k, v, lens)
    assert out.shape == (2, 1, 8, 96) and out.dtype == torch.bfloat16
    assert lse.shape == (2, 8, 1) and lse.dtype == torch.float32
    (gm,) = graphs
    ops = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert ops.count(torch.ops.flashcore.kvcache_attention) == 1, ops  # Dynamo records the packet
    # An int cache_seqlens and no lse: the other schema branch.
    out = torch.compile(lambda q, kc, vc: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=5),
                        fullgraph=True, backend="eager")(q, kc, vc)
    assert out.shape == (2, 1, 8, 96)


def test_paged_varlen_custom_op_shapes():
    from flashcore import _kvcache_ops  # noqa: F401 - registers the ops
    q, kp = _meta(7, 8, 128), _meta(10, 16, 2, 128)
    table, cu, used = _meta(2, 5, dtype=I32), _meta(3, dtype=I32), _meta(2, dtype=I32)
    out, lse = torch.ops.flashcore.paged_varlen_attention(q, kp, kp, table, used, cu, 4, 0.1, -1, 0, 0.0, True)
    assert out.shape == q.shape and lse.shape == (8, 7) and lse.dtype == torch.float32
    _, lse = torch.ops.flashcore.paged_varlen_attention(q, kp, kp, table, used, cu, 4, 0.1, -1, 0, 0.0, False)
    assert lse.numel() == 0


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
