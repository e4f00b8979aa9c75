"""GPU suite for flashcore.flash_attn_with_kvcache (KV-cache attention; issue 16): the decode kernel
(split-KV, paged and contiguous caches, both page orders), the in-place append, the cache API's
errors, CUDA graphs, a Hugging Face model decoding through a paged cache, sanitizers. Calls of
prefill size on the Hopper forward: tests/gpu_paged_forward_test.py. The oracle and its rules
(Case): tests/kvcache_case.py.
"""

import math
import os
import random
import re
import sys
import textwrap

import pytest
import torch

import flashcore
from flashcore import _attention, kvcache
from gpu_suite_env import check_expected_gpu
from kvcache_case import (DEV, MATRIX, PAGED, OTHER_DIMS, Case, bits, case_id, forced, forced_forward,  # noqa: F401
                          page_order, wide_columns)
from kvcache_reference import expected_cache, kvcache_attention
from oracle_constants import UNIT_ROUNDOFF
from sanitizer_check import run_sanitizers


@pytest.mark.parametrize("spec", MATRIX, ids=[case_id(c) for c in MATRIX])
def test_matrix(spec):
    Case(**spec).run()


# Every paged case of the matrix in both orders: address order masks each key by its logical
# position (window, causal, S_new > 1, the partial last page). Where a call is not eligible (more
# than 16 rows a kv head, leftpad, a page wider than the key block) "address" runs key order.
@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("spec", PAGED, ids=[case_id(c) for c in PAGED])
def test_paged_matrix_in_each_page_order(spec, page_order):
    Case(**spec).run()


# Head dims other than 64 and 128: the 256 kernel, and dims below a kernel's (predicated); paged
# ones in both page orders.
OTHER_DIMS_ORDERS = [(c, order) for c in OTHER_DIMS for order in ([None] if c["page_size"] is None else ["key", "address"])]


@pytest.mark.parametrize("spec,page_order", OTHER_DIMS_ORDERS, indirect=["page_order"],
                         ids=["%s-%s" % (case_id(c), order or "contig") for c, order in OTHER_DIMS_ORDERS])
def test_other_head_dims(spec, page_order):
    Case(**spec).run()


# Long split caches at head dims 96 (the 128 kernel, 12 of its 16 chunks a row), 200 and 256: the
# split combine's lanes past the call's columns neither read nor write; 256's two float4 a lane.
@pytest.mark.parametrize("page_size", [None, 16])
@pytest.mark.parametrize("num_splits", [0, 5])
@pytest.mark.parametrize("d", [96, 200, 256])
def test_other_head_dim_long_split_cache(d, page_size, num_splits):
    Case(batch=2, d=d, heads=(32, 8), capacity=9000, page_size=page_size, num_splits=num_splits,
         wide=wide_columns(d), seed=21).run()


# The portable PTX library (sm80_ptx: compute_80 PTX of the mma.sync decode source that the sm80
# and sm89 libraries compile to SASS, JIT-compiled by the driver). It is what a GPU without SASS
# here runs (Blackwell), and the only way the Ampere / Ada decode kernels (two stages within 99
# KiB, 256 on 32-key stages with 64-row query blocks) run on this Hopper: every case of the
# matrix and of the other head dims, the long split caches (the packed paged entry point:
# test_paged_varlen_internal_entry_point; the fuzzer: a third of its cases).
@pytest.fixture
def portable_ptx():
    with forced(arch="sm80_ptx"):
        yield


PTX_CASES = MATRIX + OTHER_DIMS


@pytest.mark.parametrize("spec", PTX_CASES, ids=[case_id(c) for c in PTX_CASES])
def test_portable_ptx_library(spec, portable_ptx):
    Case(**spec).run()


@pytest.mark.parametrize("page_size", [None, 16])
@pytest.mark.parametrize("d", [96, 128, 256])
def test_portable_ptx_long_split_cache(d, page_size, portable_ptx):
    Case(batch=2, d=d, heads=(32, 8), capacity=9000, page_size=page_size, num_splits=0, wide=wide_columns(d),
         seed=22).run()


def flashcore_kernel_names(case):
    """The flashcore kernels (demangled names) that running `case` launches, by torch.profiler."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        case.run()
        torch.cuda.synchronize()
    return [e.key for e in prof.key_averages() if "flashcore::" in e.key]


def test_portable_ptx_runs_the_ptx_decode_kernels(portable_ptx):
    """The forced library is the one that runs: every flashcore kernel of a split paged call with
    an append (append, decode, combine) has the sm80_ptx library's Arch, 1080, as its first
    template argument; unforced, none has."""
    def kernel_names():
        return flashcore_kernel_names(Case(batch=2, d=128, heads=(32, 8), capacity=9000, page_size=16, num_splits=0,
                                           seed=23))

    names = kernel_names()
    assert any("decode_kernel" in n for n in names) and any("combine" in n for n in names), names
    assert any("append" in n for n in names), names
    assert all("Arch)1080" in n for n in names), names
    _attention._set_forced_arch(None)
    names = kernel_names()
    assert any("decode_kernel" in n for n in names) and not any("Arch)1080" in n for n in names), names


def test_paged_decode_runs_the_tma_walk_where_it_fits():
    """On sm90a the paged decode blocks load through the TMA walk (decode_kernel's last template
    argument, kTma, is true) where it fits -- pages of 16 and 256 -- and through the cp.async walk
    for pages of 24 and with leftpad (kernels/decode/decode_launch.cuh decode_tma_fits); on other
    GPUs never. Guards against a silent fallback (an encoder the driver lacks, refused strides)."""
    hopper = torch.cuda.get_device_capability() == (9, 0)
    for kw, tma in [(dict(page_size=16), hopper), (dict(page_size=256), hopper), (dict(page_size=24), False),
                    (dict(page_size=16, leftpad=True), False)]:
        names = [n for n in flashcore_kernel_names(Case(batch=2, d=128, heads=(32, 8), capacity=2000, num_splits=0,
                                                        seed=31, **kw)) if "decode_kernel<" in n]
        flags = [re.search(r"decode_kernel<.*, (true|false)>\(", n) for n in names]
        assert flags and all(f is not None and f.group(1) == ("true" if tma else "false") for f in flags), (kw, names)


@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("d,page_size", [(64, 16), (64, 32), (64, 64), (256, 16)])
def test_long_paged_cache_other_kernel_head_dims_in_each_page_order(d, page_size, page_order):
    # The address-order walk past its head blocks at the other kernel head dims: d64 (by rule at
    # pages of 16, and of 32 and 64 from 4.4 TB/s of HBM: eight warps, 128-key blocks; 3000 keys a
    # split are 23 blocks past 12) and d256 (forced: two stages of 64 keys), with partial last pages.
    Case(batch=2, d=d, heads=(32, 8), capacity=9000, page_size=page_size, num_splits=3, seed=13).run()


def test_the_device_reports_its_hbm_bandwidth():
    """The page-order rule reads the GPU's HBM bandwidth from torch (kvcache._hbm_bytes_per_s:
    memory clock and bus width); where that reads 0 every call takes the slower GPUs' rule, which
    would go unnoticed."""
    bandwidth = kvcache._hbm_bytes_per_s(torch.cuda.current_device())
    assert bandwidth > (3e12 if torch.cuda.get_device_capability() == (9, 0) else 0), bandwidth


@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("capacity,num_splits", [(9000, 1), (9000, 3), (9000, 128), (20000, 1), (20000, 2)])
@pytest.mark.parametrize("page_size", [8, 16, 24, 64, 192])
def test_long_paged_cache_in_each_page_order(page_size, capacity, num_splits, page_order):
    # 20000 keys in one split: 1160 pages of 16 past the head blocks (12 of 128 keys), beyond the
    # 1024 the sort takes (key order); 128 splits: splits with no keys or no sorted block, and
    # splits whose last pages are past the keys. On sm90a pages of 8, 16, 64 and 192 (three 64-key
    # blocks a page) load through the TMA walk, 24 (no whole boxes) through the cp.async one
    # (kernels/decode/decode_launch.cuh decode_tma_fits).
    Case(batch=2, heads=(32, 8), capacity=capacity, page_size=page_size, num_splits=num_splits, seed=9).run()


@pytest.mark.parametrize("page_order", ["key", "address"], indirect=True)
@pytest.mark.parametrize("page_size", [16, 128])
@pytest.mark.parametrize("s_new,window", [(1, (-1, -1)), (4, (-1, -1)), (1, (3000, 0)), (4, (2500, 0))])
def test_sorted_blocks_mask_by_logical_position(page_size, s_new, window, page_order):
    # Splits of ~2500 keys: the address-order walk reaches its sorted blocks (past the first
    # kDecodeSortHeadBlocks blocks of 128 keys of a split) under causal masks of 4 new tokens (16
    # packed rows with GQA 4), windows that end inside the split and partial last pages, where
    # every key is masked by its logical position (pages of 128: address order only when forced).
    Case(batch=2, heads=(32, 8), s_new=s_new, causal=True, window=window, capacity=5000, page_size=page_size,
         num_splits=2, seed=13).run()


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


@pytest.mark.parametrize("scale", [0.0, -0.4])
def test_zero_and_negative_scales_through_masked_blocks(scale):
    # The decode kernel's masked blocks (causal, a window, ragged split ends) under a zero or a
    # negative softmax scale, split and not. (Its own RowSoftmax, kernels/decode/decode_tile.cuh,
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


@pytest.mark.parametrize("arch", [None, "sm80_ptx"], ids=["native", "sm80_ptx"])
def test_paged_varlen_internal_entry_point(arch):
    # kvcache.paged_attention_varlen_into: packed queries of different lengths over pages, as the
    # varlen front end will call it (vLLM's block_table / seqused_k); also on the portable library.
    with forced(arch=arch):
        check_paged_varlen_entry_point()


def check_paged_varlen_entry_point():
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


# Seeded random configurations beyond the matrices: any head dim up to 256, odd page sizes (1, 3,
# 24, 100, 512: the decode kernel takes any), odd capacities, S_new up to 24, split counts up to
# 128, every feature at random, both page orders, NaN columns past the head dim, and a third of the
# cases on the portable PTX library. A failure names its seed (replay: -k "random_configuration and
# <seed>").
FUZZ_SEEDS = range(20261128, 20261128 + 160)


def draw_fuzz_case(seed):
    rng = random.Random(seed)
    d = rng.choice([8 * rng.randint(1, 32)] + [64, 128, 256])
    page_size = rng.choice([None] * 4 + [1, 3, 8, 16, 16, 24, 32, 48, 64, 100, 128, 256, 512])
    hk = rng.choice([1, 2, 4, 8])
    hq = hk * rng.choice([1, 2, 3, 4, 8])
    s_new = rng.choice([1, 1, 1, 2, 5, 7, 16, 24])
    append = rng.random() < 0.8
    feats = dict(causal=rng.random() < 0.7, append=append, lse=rng.random() < 0.7,
                 num_splits=rng.choice([0, 0, 1, 2, 3, 7, 16, 128]))
    if rng.random() < 0.3:
        feats["window"] = (rng.randint(0, 300), rng.choice([-1, rng.randint(0, 20)]))
    if rng.random() < 0.25:
        feats["softcap"] = rng.choice([10.0, 30.0, 50.0])
    if append and rng.random() < 0.25:
        feats["rotary"] = rng.choice(["interleaved", "neox", "neox_half"])
    if rng.random() < 0.2:
        feats["leftpad"] = True
    elif page_size is None and rng.random() < 0.2:
        feats["batch_idx"] = True
    if rng.random() < 0.5:
        feats["wide"] = 8 * rng.randint(1, 8)
    spec = dict(dtype=rng.choice([torch.bfloat16, torch.float16]), d=d, page_size=page_size, s_new=s_new,
                heads=(hq, hk), batch=rng.randint(1, 4), capacity=rng.randint(s_new + 21, 2500), seed=seed, **feats)
    order = rng.choice([None, "key", "address"]) if page_size is not None else None
    arch = "sm80_ptx" if rng.random() < 1 / 3 else None
    return spec, order, arch


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
def test_random_configuration(seed):
    spec, order, arch = draw_fuzz_case(seed)
    with forced(arch, order):
        try:
            Case(**spec).run()
        except AssertionError as e:
            raise AssertionError("seed %d (%s, page order %s, arch %s): %s" % (seed, case_id(spec), order, arch, e))


def test_torch_compile_fullgraph_decode_steps_match_eager():
    """Decode steps of a torch.compile'd function (fullgraph, inductor; the call is one custom op,
    py/flashcore/_kvcache_ops.py) against eager calls on copies of the same caches: out, lse and the
    caches bitwise equal after every step, the caches appended in place, and a compiled step runs
    flashcore's kernels only (inductor copied no cache to functionalize the append)."""
    from torch.profiler import ProfilerActivity, profile
    torch.manual_seed(3)
    dt, b, hq, hk, d, cap = torch.bfloat16, 2, 8, 2, 128, 4096
    kc = torch.randn(b, cap, hk, d, device=DEV).to(dt)
    vc = torch.randn(b, cap, hk, d, device=DEV).to(dt)
    kc_e, vc_e = kc.clone(), vc.clone()
    ptrs = (kc.data_ptr(), vc.data_ptr())

    def step(q, kc, vc, k, v, lens):
        return flashcore.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, causal=True,
                                                 return_softmax_lse=True)
    compiled = torch.compile(step, fullgraph=True)
    for n in (10, 11, 3000, 3001):
        lens = torch.tensor([n, n + 5], dtype=torch.int32, device=DEV)
        q = torch.randn(b, 1, hq, d, device=DEV).to(dt)
        k = torch.randn(b, 1, hk, d, device=DEV).to(dt)
        v = torch.randn(b, 1, hk, d, device=DEV).to(dt)
        out_c, lse_c = compiled(q, kc, vc, k, v, lens)
        out_e, lse_e = step(q, kc_e, vc_e, k, v, lens)
        assert torch.equal(bits(out_c), bits(out_e)) and torch.equal(lse_c, lse_e), n
        assert torch.equal(bits(kc), bits(kc_e)) and torch.equal(bits(vc), bits(vc_e)), n
    assert (kc.data_ptr(), vc.data_ptr()) == ptrs
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        compiled(q, kc, vc, k, v, lens)
        torch.cuda.synchronize()
    names = [e.key for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    # The eager call's own work: the check kernel's facts come back in one small device-to-host copy.
    others = [n for n in names if "flashcore" not in n and not n.startswith("Memcpy DtoH")]
    assert any("decode_kernel" in n for n in names) and not others, names


def test_torch_compile_fullgraph_paged_varlen_matches_eager():
    torch.manual_seed(4)
    dt, hq, hk, d, ps = torch.bfloat16, 8, 2, 128, 16
    q_lens, k_lens = [1, 5, 130], [40, 17, 300]
    kc = torch.randn(3 * 20, ps, hk, d, device=DEV).to(dt)
    vc = torch.randn(3 * 20, ps, hk, d, device=DEV).to(dt)
    table = torch.randperm(60, device=DEV).view(3, 20).to(torch.int32)
    cu = torch.tensor([0, 1, 6, 136], dtype=torch.int32, device=DEV)
    used = torch.tensor(k_lens, dtype=torch.int32, device=DEV)
    q = torch.randn(136, hq, d, device=DEV).to(dt)

    def call(q, kc, vc, table, cu, used):
        return flashcore.flash_attn_varlen_func(q, kc, vc, cu, None, 130, None, causal=True, block_table=table,
                                                seqused_k=used, return_attn_probs=True)
    out_c, lse_c, _ = torch.compile(call, fullgraph=True)(q, kc, vc, table, cu, used)
    out_e, lse_e, _ = call(q, kc, vc, table, cu, used)
    assert torch.equal(bits(out_c), bits(out_e)) and torch.equal(lse_c, lse_e)


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
    assert got == {(a, t, d) for a in ("sm80", "sm89", "sm90a", "sm80_ptx") for t in ("fp16", "bf16") for d in (64, 128, 256)}


@pytest.mark.parametrize("head_dim", [64, 96, 256], ids=["d64", "d96_phi3", "d256_gemma"])
def test_hf_llama_greedy_decoding_through_the_paged_cache(head_dim):
    """A Llama-style model from config (random weights, GQA 8/2, head_dim 64; 96 as Phi-3's, 256 as
    Gemma's: the predicated 128 kernel and the 256 one), greedy decoding of
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
                         num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=256,
                         head_dim=head_dim)
    assert config.head_dim == head_dim
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


# Head dims 128, 96 (predicated on 128) and 256; 12 rows a kv head (the 16-row decode kernel) and
# 48 (the 64-row one); this GPU's library and the portable PTX one. PyTorch's caching allocator is
# off, so each tensor is its own allocation: memcheck sees a read or write past any of them
# (inside the cache's pool it would not), initcheck a read of scratch no kernel wrote.
SANITIZER_CASE = textwrap.dedent("""
    import os
    os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
    import torch, flashcore
    torch.manual_seed(0)
    dt, ps = torch.bfloat16, 16
    for arch, d in [(None, 128), (None, 96), (None, 256), ("sm80_ptx", 128), ("sm80_ptx", 96), ("sm80_ptx", 256)]:
        flashcore._attention._set_forced_arch(arch)
        for hq, hk in ((8, 2), (16, 1)):
            kc = torch.randn(12, ps, hk, d, device="cuda").to(dt)
            vc = torch.randn(12, ps, hk, d, device="cuda").to(dt)
            bt = torch.randperm(12, device="cuda").view(2, 6).to(torch.int32)
            q = torch.randn(2, 3, hq, d, device="cuda").to(dt)
            k = torch.randn(2, 3, hk, d, device="cuda").to(dt)
            v = torch.randn(2, 3, hk, d, device="cuda").to(dt)
            lens = torch.tensor([40, 77], dtype=torch.int32, device="cuda")
            for order in ("key", "address"):
                flashcore.kvcache._set_forced_page_order(order)
                for splits in (1, 3):
                    out, lse = flashcore.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens, block_table=bt,
                                                                 causal=True, num_splits=splits,
                                                                 return_softmax_lse=True)
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


def test_compute_sanitizer_paged_case(tmp_path):
    """memcheck, racecheck, initcheck and synccheck at once (a process each), each strict."""
    run_sanitizers(("memcheck", "racecheck", "initcheck", "synccheck"), SANITIZER_CASE, "decode", tmp_path)


if __name__ == "__main__":
    check_expected_gpu()
    sys.exit(pytest.main([__file__, "-q", "-rs", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
