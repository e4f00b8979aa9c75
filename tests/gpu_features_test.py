"""GPU suite for the features of issue 13 (instantiated per GPU kind by tests/gpu.bzl): GQA/MQA,
packed variable-length batches (with seqused_k), sliding window, softcap and attention sinks,
alone and combined, with causal, forward and gradients (dsink included).

Oracle (FlashAttention's rule): flashcore.reference.features_reference in float64 on fresh
random inputs; flashcore's relative error must be at most 2x the error of the same math
(features_reference again) run in the inputs' low-precision dtype, floored at the dtype's unit
roundoff. Outputs and gradients are poisoned (NaN) before every run: every element that belongs
to the result must be written, and rows of packed tensors past cu_seqlens[-1] must keep their
poison (never written) while NaN in the inputs' padding rows must not leak into the result.
The cases and checks live in tests/features_case.py.
"""

import contextlib
import itertools
import os
import random
import re
import sys
import textwrap

import pytest
import torch

import flashcore
from flashcore import _attention
from flashcore.reference import features_reference
from sanitizer_check import run_sanitizer
from gpu_suite_env import check_expected_gpu

from features_case import (DTYPES, ERRORS, UNIT_ROUNDOFF, VARLEN_Q, Case, check_backward, check_deterministic_backward,
                           check_forward, print_error_summary, rel_err, run_and_check)


# --- each feature and every combination, forward and gradients -------------------------------

FEATURE_NAMES = ("gqa", "varlen", "window", "softcap", "sink", "causal")
COMBOS = list(itertools.product((False, True), repeat=len(FEATURE_NAMES)))


def combo_id(bits):
    return "+".join(n for n, on in zip(FEATURE_NAMES, bits) if on) or "plain"


@pytest.mark.parametrize("head_dim", [64, 96, 128])  # 96: sm90a's own backward, 64-byte swizzled tiles
@pytest.mark.parametrize("bits", COMBOS, ids=combo_id)
def test_features_and_combinations_match_float64(bits, head_dim):
    # dtype alternates over the combinations (each feature meets both dtypes at both head dims)
    dtype = DTYPES[(COMBOS.index(bits) + head_dim // 64) % 2]
    case = Case(dtype=dtype, head_dim=head_dim, **dict(zip(FEATURE_NAMES, bits)))
    run_and_check(case)


# The same combinations on the sm90a forward's two-consumer default tile: these cases are small
# (at most SMs / 2 tiles of 128 rows), so by shape they run the one-consumer few-tiles tile at 64
# and 128 (kernels/hopper/tile_policy.h pick_fwd_tile); forward only (the tile is the forward's).
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("bits", COMBOS, ids=combo_id)
def test_features_on_the_default_forward_tile_match_float64(bits, head_dim):
    dtype = DTYPES[(COMBOS.index(bits) + head_dim // 64 + 1) % 2]
    case = Case(dtype=dtype, head_dim=head_dim, **dict(zip(FEATURE_NAMES, bits)))
    _attention._set_forced_fwd_tile("default")
    try:
        run_and_check(case, backward=False)
    finally:
        _attention._set_forced_fwd_tile(None)


# Head dims between the instantiations (issue 15: multiples of 8 up to 128 on the 64 / 128 kernels,
# predicated): each with the features alone and combined, forward and gradients, both dtypes over
# the combinations.
ODD_HEAD_DIMS = [8, 40, 72, 80, 96, 120]
ODD_COMBOS = [
    dict(),
    dict(gqa=True, window=True, causal=True),
    dict(varlen=True, softcap=True, sink=True),
    dict(varlen=True, seqused=True, gqa=True, causal=True),
    dict(gqa=True, varlen=True, window=True, softcap=True, sink=True, causal=True),
]


@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
@pytest.mark.parametrize("combo", range(len(ODD_COMBOS)))
def test_odd_head_dims_with_features_match_float64(combo, head_dim):
    dtype = DTYPES[(combo + head_dim // 8) % 2]
    run_and_check(Case(dtype=dtype, head_dim=head_dim, **ODD_COMBOS[combo]))


@pytest.mark.parametrize("head_dim", [40, 96])
def test_odd_head_dim_deterministic_is_bitwise_reproducible_with_every_feature(head_dim):
    case = Case(dtype=torch.float16, head_dim=head_dim, **DETERMINISTIC_ALL)
    check_deterministic_backward(case)


# v's own head dim (issue 15: DeepSeek's MLA trains with q/k 192 and v 128): the call runs on the
# kernels of the wider one, Q/K and V/O/dO predicated apart. Pairs that reach each kernel family
# on sm90a: (192, 128) the 192 forward and the mma.sync 256 backward; (128, 64) and (64, 128) the
# 128 forward and the wgmma backward (q/k or v narrower); (256, 128) the 256 forward; (40, 72) the
# 96 forward (64-byte swizzle) and the 128 backward. Features alone and combined, both dtypes.
HEAD_DIM_PAIRS = [(192, 128), (128, 64), (64, 128), (256, 128), (40, 72)]


def pair_id(pair):
    return "d%d_v%d" % pair


@pytest.mark.parametrize("pair", HEAD_DIM_PAIRS, ids=pair_id)
@pytest.mark.parametrize("combo", range(len(ODD_COMBOS)))
def test_value_head_dim_pairs_with_features_match_float64(combo, pair):
    dtype = DTYPES[(combo + HEAD_DIM_PAIRS.index(pair)) % 2]
    run_and_check(Case(dtype=dtype, head_dim=pair[0], head_dim_v=pair[1], **ODD_COMBOS[combo]))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dense_shape", [(1, 700, 1033), (1, 300, 4100)], ids=["k1033", "k4100"])
def test_value_head_dim_pair_long_sequence_matches_float64(causal, dense_shape):
    # Several key blocks of every kernel tile and a ragged end, at DeepSeek's pair (P V on the 192
    # forward's narrow mainloop, N = 128); 4100 keys unmasked take 192's long-rows tile.
    for dtype in DTYPES:
        run_and_check(Case(dtype=dtype, head_dim=192, head_dim_v=128, causal=causal, heads=4,
                           dense_shape=dense_shape))


def test_value_head_dim_pair_deterministic_is_bitwise_reproducible():
    case = Case(dtype=torch.bfloat16, head_dim=192, head_dim_v=128, **DETERMINISTIC_ALL)
    check_deterministic_backward(case)


def test_public_api_value_head_dim_pair_autograd_matches_float64():
    # flash_attn_func / flash_attn_varlen_func end to end: out has v's head dim, gradients flow to
    # q, k, v through the custom op (shapes as DeepSeek-V3's MLA training: 192 / 128).
    g = torch.Generator(device="cuda").manual_seed(int.from_bytes(os.urandom(4), "little"))
    q, k = (torch.randn(2, 300, 4, 192, generator=g, device="cuda").bfloat16().requires_grad_() for _ in range(2))
    v = torch.randn(2, 300, 4, 128, generator=g, device="cuda").bfloat16().requires_grad_()
    dout = torch.randn(2, 300, 4, 128, generator=g, device="cuda").bfloat16()
    out = flashcore.flash_attn_func(q, k, v, causal=True)
    assert out.shape == (2, 300, 4, 128)
    out.backward(dout)
    ref = features_reference(q.detach(), k.detach(), v.detach(), softmax_scale=192 ** -0.5, causal=True,
                             dout=dout, compute_dtype=torch.float64)
    lowp = features_reference(q.detach(), k.detach(), v.detach(), softmax_scale=192 ** -0.5, causal=True,
                              dout=dout, compute_dtype=torch.bfloat16)
    for name, ours, r, lo in (("out", out, ref.out, lowp.out), ("dq", q.grad, ref.dq, lowp.dq),
                              ("dk", k.grad, ref.dk, lowp.dk), ("dv", v.grad, ref.dv, lowp.dv)):
        err, lerr = rel_err(ours, r), rel_err(lo, r)
        assert err <= 2 * max(lerr, UNIT_ROUNDOFF[torch.bfloat16]), "%s: %.3g vs bf16 math %.3g" % (name, err, lerr)
    # packed: the same tensors as one varlen batch of two sequences
    cu = torch.tensor([0, 300, 600], dtype=torch.int32, device="cuda")
    packed = flashcore.flash_attn_varlen_func(q.detach().flatten(0, 1), k.detach().flatten(0, 1),
                                              v.detach().flatten(0, 1), cu, cu, 300, 300, causal=True)
    assert packed.shape == (600, 4, 128)
    err, lerr = rel_err(packed.view(2, 300, 4, 128), ref.out), rel_err(lowp.out, ref.out)
    assert err <= 2 * max(lerr, UNIT_ROUNDOFF[torch.bfloat16]), "varlen out: %.3g vs bf16 math %.3g" % (err, lerr)


# The Hopper forward's tile orders for packed batches (kernels/hopper/tile_scheduler.cuh): up to
# 512 sequences are sorted longest first on the GPU, and causal tiles paired (long, short) when
# they outnumber the SMs; more sequences keep the unsorted order. Lengths drawn per run (seeded
# from the case): zero-length sequences, 1-row ones, and non-multiples of the 128-row tiles.
def schedule_lengths(kind, seed):
    rng = random.Random(seed)
    if kind == "sorted":  # ~40 x 8 heads x ~4.5 query blocks: more tiles than SMs, so causal pairs
        q = [rng.choice((0, 1, rng.randrange(2, 1200))) if i % 7 == 0 else rng.randrange(2, 1200) for i in range(40)]
        k = [max(0, n + rng.randrange(-64, 65)) for n in q]
    else:  # more sequences than the sorted table holds
        q = [rng.randrange(0, 40) for _ in range(600)]
        k = [rng.randrange(0, 48) for _ in range(600)]
    return tuple(q), tuple(k)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("kind", ["sorted", "unsorted"])
def test_varlen_tile_orders_match_float64(kind, causal):
    seed = int.from_bytes(os.urandom(4), "little")
    case = Case(dtype=DTYPES[causal], head_dim=64, varlen=True, gqa=True, causal=causal, seed=seed,
                lengths=schedule_lengths(kind, seed))
    run_and_check(case, backward=False)


# The sorted packed order's balanced walk (kernels/hopper/tile_scheduler.cuh, kBalancedWalk: causal
# kernels of head dims 64, 96, 128): a snake over the grid's rounds, and an odd sequence's middle
# query blocks two heads an item -- with 7 heads the last item of each such sequence holds one.
@pytest.mark.parametrize("head_dim", [96, 128])
def test_varlen_sorted_paired_middles_match_float64(head_dim):
    seed = int.from_bytes(os.urandom(4), "little")
    case = Case(dtype=torch.bfloat16, head_dim=head_dim, varlen=True, causal=True, heads=7, seed=seed,
                lengths=schedule_lengths("sorted", seed))
    run_and_check(case, backward=False)


# The dense masked order with a sliding window (kernels/hopper/tile_scheduler.cuh): more tiles than
# SMs, so tiles are paired. Where more than a quarter of the 16 query blocks see the sequence's
# start (w1000, w700) those are paired among themselves and the full-window ones run alone; fewer
# (w0, w300) or all (w5000): every block paired as without a window. Sq = Sk and Sq < Sk, causal
# (right 0) and a right extent.
@pytest.mark.parametrize("window_size,seqlen_k", [((0, 0), 2048), ((300, 0), 2048), ((1000, 0), 2304),
                                                   ((700, 64), 2048), ((5000, 0), 2048)],
                         ids=["w0", "w300", "w1000-sk2304", "w700-right64", "w5000"])
def test_window_tile_order_matches_float64(window_size, seqlen_k):
    case = Case(dtype=torch.bfloat16, head_dim=64, window=True, causal=window_size[1] == 0, heads=8,
                dense_shape=(2, 2048, seqlen_k), window_size=window_size)
    run_and_check(case, backward=False)


# The dense causal order's sorted tail (kernels/hopper/tile_scheduler.cuh walk_divisors): pairs
# until the last round and the remainder, whose tiles then run longest first in a snake over the
# CTAs. On a 132-SM GPU: 16 heads x 16 pairs (256 < 2 x 132) are all tail; 2 x 16 heads of 10
# pairs (19 query blocks: an odd count, its middle block unpaired) leave a partial (batch, head)
# at pair 2; 40 x 4 pairs of 8 blocks with Sq < Sk (bottom-right causal); pack-GQA groups of 4 on
# the 64 kernel. Every tile must be visited exactly once: a missing one leaves the poisoned output.
@pytest.mark.parametrize("head_dim,heads,dense_shape,gqa", [
    (128, 16, (1, 4096, 4096), False), (64, 16, (2, 2400, 2400), False), (128, 40, (1, 1000, 1300), False),
    (64, 32, (2, 2400, 2400), True)], ids=["all-tail", "partial-head-odd-m", "sq-lt-sk", "pack-gqa"])
def test_causal_sorted_tail_matches_float64(head_dim, heads, dense_shape, gqa):
    case = Case(dtype=torch.bfloat16, head_dim=head_dim, causal=True, heads=heads, dense_shape=dense_shape, gqa=gqa)
    run_and_check(case, backward=False)


# The long-rows forward tiles (kernels/hopper/tile_policy.h fwd_long_rows: 64's 192 x 128, 96's
# 192 x 96) with the features: GQA + window + softcap + sink, dense and packed. Forced: by shape
# these 4 heads would run 64's on its long-rows tile only from a wave of 192-row tiles (pick_fwd_tile).
@pytest.mark.parametrize("varlen", [False, True], ids=["dense", "varlen"])
@pytest.mark.parametrize("head_dim", [64, 96])
def test_long_rows_tile_features_match_float64(varlen, head_dim):
    case = Case(dtype=torch.bfloat16, head_dim=head_dim, gqa=True, window=True, softcap=True, sink=True, causal=True,
                varlen=varlen, heads=4, dense_shape=(1, 4300, 4300), lengths=((4200, 300), (4200, 350)),
                window_size=(1500, 0))
    _attention._set_forced_fwd_tile("long_rows")
    try:
        run_and_check(case, backward=False)
    finally:
        _attention._set_forced_fwd_tile(None)


@pytest.mark.parametrize("varlen", [False, True], ids=["dense", "varlen"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_seqused_k_matches_float64(varlen, dtype):
    run_and_check(Case(dtype=dtype, head_dim=64 if varlen else 128, varlen=varlen, seqused=True, gqa=True,
                       causal=True, window=varlen))


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_mqa_and_grad_through_lse(dtype):
    case = Case(dtype=dtype, head_dim=64, gqa=True, heads=4, varlen=True, sink=True, causal=True)
    assert case.heads_kv == 1
    case.dlse = torch.randn(case.lse_shape(), device="cuda")
    case.dlse[:, sum(VARLEN_Q):] = float("nan")  # padding columns: never read
    run_and_check(case)


# --- pack-GQA (kernels/hopper/fwd_launch.cuh fwd_gqa_shift): on sm90a, dense GQA calls with groups
# of 2, 4 or 8 (sliding windows included), at head dims that run on the 64 kernels, take a kernel whose
# tiles hold a group's query heads (row r: position r / group, head r % group). Each case below
# runs packed and unpacked (_set_pack_gqa) on the same inputs and tile: the packed result must
# match float64 and be bitwise the unpacked one (a row sees the same key blocks in the same order;
# only which rows share its tile changes), lse and O's residual included.

def packs_here():
    return torch.cuda.get_device_capability() == (9, 0)


def packed_flag(kernel_name):
    """The sm90a forward kernel's kPackGqa (True / False) from a profiler name, demangled or not;
    None for any other kernel."""
    m = re.search(r"hopper::fwd_kernel<([^>]*)>", kernel_name)
    if m:
        return m.group(1).split(",")[-1].strip() == "true"
    m = re.search(r"hopper10fwd_kernel.*?ELb([01])EEEvNS_9FwdParams", kernel_name)
    return None if m is None else m.group(1) == "1"


def forward_kernels(case):
    """kPackGqa of each sm90a forward kernel case.forward() launches (torch.profiler, CUPTI)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        case.forward()
    names = [e.name for e in prof.events()]
    flags = [packed_flag(n) for n in names]
    return [f for f in flags if f is not None], names


@contextlib.contextmanager
def pack_gqa_off():
    """The unpacked kernels for the calls inside (the test-only switch; on again after)."""
    _attention._set_pack_gqa(False)
    try:
        yield
    finally:
        _attention._set_pack_gqa(True)


def forward_packed_and_unpacked(case):
    """(out, lse) packed, (out, lse, out_resid) unpacked; case.out_resid stays the packed run's. Both
    keep O's rounding residual, so that the packed kernels' residual stores are compared too."""
    with pack_gqa_off():
        out_u, lse_u = case.forward(keep_residual=True)
        resid_u = case.out_resid
    out_p, lse_p = case.forward(keep_residual=True)
    return (out_p, lse_p), (out_u, lse_u, resid_u)


def assert_bitwise(case, packed, unpacked):
    for name, a, b in (("out", packed[0], unpacked[0]), ("lse", packed[1], unpacked[1]),
                       ("out_resid", case.out_resid, unpacked[2])):
        assert torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0)), (
            "%s: packed %s differs from the unpacked path's (max |diff| %.3g) [seed %d]" % (
                case.name, name, (a.double() - b.double()).abs().nan_to_num(0.0).max().item(), case.seed))


# (Case keywords, packs): which calls take the packed kernel on sm90a
PACK_ROUTES = {
    "d64-g4": (dict(head_dim=64, gqa=True), True),
    "d64-g2-causal": (dict(head_dim=64, gqa=True, group=2, causal=True), True),
    "d64-g8-right-window": (dict(head_dim=64, gqa=True, group=8, window=True, window_size=(-1, 30)), True),
    "d40-g4-sink-softcap": (dict(head_dim=40, gqa=True, sink=True, softcap=True), True),
    "d64/v32-g4": (dict(head_dim=64, head_dim_v=32, gqa=True), True),
    "d64-g3": (dict(head_dim=64, gqa=True, group=3, heads=6), False),
    "d64-g4-left-window": (dict(head_dim=64, gqa=True, window=True), True),
    # tile_policy.h fwd_pack_window: groups of 2, and windows of more than 1025 keys, stay unpacked.
    "d64-g2-left-window": (dict(head_dim=64, gqa=True, group=2, window=True), False),
    "d64-g8-window-1101-keys": (dict(head_dim=64, gqa=True, group=8, causal=True, window=True, window_size=(1100, 0),
                                     dense_shape=(1, 2100, 2100)), False),
    "d64-g8-causal-sliding-window-sink": (dict(head_dim=64, gqa=True, group=8, causal=True, window=True,
                                               window_size=(128, 0), sink=True, dense_shape=(2, 700, 700)), True),
    "d64-g4-varlen": (dict(head_dim=64, gqa=True, varlen=True), False),
    "d128-g4": (dict(head_dim=128, gqa=True), False),
    "d64-mha": (dict(head_dim=64), False),
}


@pytest.mark.parametrize("route", list(PACK_ROUTES))
def test_pack_gqa_runs_where_it_applies(route):
    kwargs, packs = PACK_ROUTES[route]
    case = Case(dtype=torch.bfloat16, **kwargs)
    flags, names = forward_kernels(case)
    if not packs_here():  # other archs have no packed kernel: not an sm90a forward at all
        assert not any(flags), names
        return
    assert flags, "no sm90a forward kernel among the profiled kernels: %s" % names
    assert flags == [packs], "%s: expected kPackGqa=%s, launched %s" % (route, packs, names)
    with pack_gqa_off():  # the test switch reaches the dispatch
        assert forward_kernels(case)[0] == [False]


# Every tile the 64 kernels have (forced) x group 2 / 4 / 8, causal and not; plain, with softcap,
# a sink and seqused_k, and with a sliding window (left 45, and right 70 where not causal; its
# growing query blocks are counted in positions, tile_scheduler.cuh; groups of 2 run it unpacked,
# tile_policy.h fwd_pack_window). 150 query rows: no tile is full, and 150 x group rows not a tile
# multiple.
@pytest.mark.parametrize("features", ["plain", "softcap+sink+seqused", "window"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("group", [2, 4, 8])
@pytest.mark.parametrize("tile", ["default", "long_rows", "few_tiles"])
def test_pack_gqa_every_tile_and_group_is_bitwise_unpacked_and_matches_float64(tile, group, causal, features):
    extra = {"plain": {}, "softcap+sink+seqused": dict(softcap=True, sink=True, seqused=True),
             "window": dict(window=True)}[features]
    case = Case(dtype=DTYPES[causal], head_dim=64, gqa=True, group=group, causal=causal, **extra)
    _attention._set_forced_fwd_tile(tile)
    try:
        packed, unpacked = forward_packed_and_unpacked(case)
    finally:
        _attention._set_forced_fwd_tile(None)
    assert_bitwise(case, packed, unpacked)
    check_forward(case, *packed, case.reference(torch.float64, with_grads=False),
                  case.reference(case.dtype, with_grads=False))


# Shapes and head dims on the packed kernels, forward (bitwise the unpacked path, float64) and the
# backward from the packed forward's out / lse / residual (dsink included).
PACK_SHAPES = {
    "d8-causal": dict(head_dim=8, causal=True),
    "d40": dict(head_dim=40),
    "d56-causal-g8": dict(head_dim=56, causal=True, group=8),
    "d64/v32-causal": dict(head_dim=64, head_dim_v=32, causal=True),
    "d32/v64": dict(head_dim=32, head_dim_v=64),
    "sq300>sk100-causal": dict(head_dim=64, causal=True, dense_shape=(2, 300, 100)),
    "sq1": dict(head_dim=64, dense_shape=(3, 1, 300)),
    "sq1-causal-g8": dict(head_dim=64, causal=True, group=8, dense_shape=(3, 1, 300)),
    "s1000-causal-g8-sink": dict(head_dim=64, causal=True, group=8, sink=True, dense_shape=(1, 1000, 1000)),
    "right-window-softcap-sink": dict(head_dim=64, window=True, window_size=(-1, 40), softcap=True, sink=True),
    # gpt-oss's sliding layer (window 128, a sink) on 1000 positions: most query blocks see a
    # whole window; and a window wider than the rows before the last (every block growing).
    "s1000-causal-g8-window128-sink": dict(head_dim=64, causal=True, group=8, window=True, window_size=(128, 0),
                                           sink=True, dense_shape=(1, 1000, 1000)),
    "sq300<sk900-causal-g4-window700": dict(head_dim=64, causal=True, group=4, window=True, window_size=(700, 0),
                                            dense_shape=(2, 300, 900)),
    "two-sided-window-g4": dict(head_dim=64, group=4, window=True, window_size=(60, 25), dense_shape=(2, 500, 520)),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
@pytest.mark.parametrize("shape", list(PACK_SHAPES))
def test_pack_gqa_shapes_and_head_dims_match_float64_with_gradients(shape, dtype):
    case = Case(dtype=dtype, gqa=True, **PACK_SHAPES[shape])
    packed, unpacked = forward_packed_and_unpacked(case)
    assert_bitwise(case, packed, unpacked)
    ref, lowp = case.reference(torch.float64), case.reference(case.dtype)
    check_forward(case, *packed, ref, lowp)
    check_backward(case, case.backward(*packed), ref, lowp)


# q and out as strided views (what the kernel's 5-D maps see through their strides): q transposed
# from (B, H, S, D) storage, out a slice of wider rows. Same values as the contiguous call.
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_pack_gqa_transposed_q_and_strided_out(causal):
    case = Case(dtype=torch.bfloat16, head_dim=64, gqa=True, group=4, causal=causal, dense_shape=(2, 333, 400))
    out_c, lse_c = case.forward()
    q_c = case.q
    case.q = q_c.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3)  # head stride S*D, row stride D
    assert case.q.stride(1) == 64 and case.q.stride(2) == 333 * 64
    wide = torch.full(out_c.shape[:-1] + (96,), float("nan"), device="cuda", dtype=out_c.dtype)
    out = wide[..., 16:80]  # row stride 96 x heads, 32-byte offset
    lse = torch.full_like(lse_c, float("nan"))
    _attention._launch(case.q, case.k, case.v, out, lse, case.causal, case.scale, **case.features())
    torch.cuda.synchronize()
    assert torch.isnan(wide[..., :16]).all() and torch.isnan(wide[..., 80:]).all(), "wrote outside out's view"
    assert torch.equal(out, out_c) and torch.equal(lse, lse_c)
    case.q = q_c
    check_forward(case, out, lse, case.reference(torch.float64, with_grads=False),
                  case.reference(case.dtype, with_grads=False))


# --- deterministic mode: bitwise over 3 runs, per feature ------------------------------------

DETERMINISTIC_ALL = dict(gqa=True, varlen=True, window=True, softcap=True, sink=True, causal=True)
DETERMINISTIC = {"gqa": dict(gqa=True), "varlen": dict(varlen=True), "window": dict(window=True, causal=True),
                 "softcap": dict(softcap=True), "sink": dict(sink=True),
                 "all": dict(gqa=True, varlen=True, window=True, softcap=True, sink=True, causal=True)}


@pytest.mark.parametrize("feature", list(DETERMINISTIC))
def test_deterministic_mode_is_bitwise_reproducible_per_feature(feature):
    case = Case(dtype=torch.bfloat16, head_dim=128 if feature in ("gqa", "all") else 64, **DETERMINISTIC[feature])
    check_deterministic_backward(case)


# --- the sm80 code (the compute_80 PTX library, JIT-compiled for this GPU) through the same
# oracle, forward and backward (FLASHCORE_FORCE_ARCH routes both passes) -----------------------

PTX_ARCHS = ["sm80_ptx"]  # kernels/defs.bzl PTX_ARCHS
PTX_FEATURES = {"gqa": dict(gqa=True), "varlen": dict(varlen=True, seqused=True), "window": dict(window=True),
                "window_causal": dict(window=True, causal=True), "softcap": dict(softcap=True),
                "sink": dict(sink=True),
                "all": dict(gqa=True, varlen=True, window=True, softcap=True, sink=True, causal=True)}


@pytest.fixture
def forced_arch(request):
    _attention._set_forced_arch(request.param)
    try:
        yield request.param
    finally:
        _attention._set_forced_arch(None)


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("feature", list(PTX_FEATURES))
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_variant_features_match_float64(forced_arch, feature, head_dim, dtype):
    run_and_check(Case(dtype=dtype, head_dim=head_dim, **PTX_FEATURES[feature]))


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("feature", ["gqa", "varlen", "window_causal", "all"])
@pytest.mark.parametrize("pair", HEAD_DIM_PAIRS, ids=pair_id)
def test_ptx_variant_value_head_dim_pairs_match_float64(forced_arch, feature, pair):
    dtype = DTYPES[HEAD_DIM_PAIRS.index(pair) % 2]
    run_and_check(Case(dtype=dtype, head_dim=pair[0], head_dim_v=pair[1], **PTX_FEATURES[feature]))


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("feature", ["varlen", "window_causal", "all"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
def test_ptx_variant_odd_head_dims_with_features_match_float64(forced_arch, feature, head_dim):
    dtype = DTYPES[(head_dim // 8) % 2]
    run_and_check(Case(dtype=dtype, head_dim=head_dim, **PTX_FEATURES[feature]))


# --- the public API on the GPU: autograd, torch.compile, CUDA graphs --------------------------

def test_public_varlen_api_autograd_matches_the_poisoned_kernel_runs():
    case = Case(dtype=torch.float16, head_dim=128, gqa=True, varlen=True, window=True, softcap=True, sink=True,
                causal=True)
    q, k, v = (t.detach().clone().requires_grad_(True) for t in (case.q, case.k, case.v))
    sink = case.sink.detach().clone().requires_grad_(True)
    out, lse, probs = flashcore.flash_attn_varlen_func(
        q, k, v, case.cu_q, case.cu_k, case.max_q, case.max_k, softmax_scale=case.scale, causal=True,
        window_size=case.window, softcap=case.softcap, deterministic=True, return_attn_probs=True,
        learnable_sink=sink)
    assert probs is None and lse.shape == (case.heads, case.q.shape[0])
    n = sum(VARLEN_Q)
    out[:n].backward(case.dout[:n])
    want_out, want_lse = case.forward()
    assert torch.equal(out[:n], want_out[:n]) and torch.equal(lse[:, :n], want_lse[:, :n])
    want = case.backward(want_out, want_lse, deterministic=True)
    kmask = case.k_rows_mask()
    assert torch.equal(q.grad[:n], want[0][:n])
    assert torch.equal(k.grad[kmask], want[1][kmask]) and torch.equal(v.grad[kmask], want[2][kmask])
    assert torch.allclose(sink.grad, want[3], rtol=1e-5, atol=1e-6)
    # Rows past cu_seqlens[-1] belong to no sequence: zero gradients (the inputs there are NaN). The
    # front end checked these lengths, so the backward zeroed only those rows (_gradient_buffers).
    nk = sum(case.len_k)
    assert (q.grad[n:] == 0).all() and (k.grad[nk:] == 0).all() and (v.grad[nk:] == 0).all()


def test_public_dense_api_gqa_window_softcap_sink_and_packed_variants():
    case = Case(dtype=torch.bfloat16, head_dim=64, gqa=True, window=True, softcap=True, sink=True, causal=True)
    out = flashcore.flash_attn_func(case.q, case.k, case.v, softmax_scale=case.scale, causal=True,
                                    window_size=case.window, softcap=case.softcap, learnable_sink=case.sink)
    assert torch.equal(out, case.forward()[0])
    same = flashcore.attention(case.q, case.k, case.v, softmax_scale=case.scale, causal=True,
                               window_size=case.window, softcap=case.softcap, learnable_sink=case.sink)
    assert torch.equal(out, same)
    qkv = torch.randn(2, 100, 3, 4, 64, device="cuda", dtype=torch.float16)
    got = flashcore.flash_attn_qkvpacked_func(qkv, causal=True, window_size=(20, 0))
    q, k, v = qkv.unbind(2)
    ref = features_reference(q, k, v, causal=True, window_size=(20, 0))
    assert rel_err(got, ref.out) < 5e-3
    kv = torch.randn(2, 120, 2, 1, 64, device="cuda", dtype=torch.float16)
    got = flashcore.flash_attn_kvpacked_func(q, kv, softcap=3.0)
    ref = features_reference(q, kv[:, :, 0], kv[:, :, 1], softcap=3.0)
    assert rel_err(got, ref.out) < 5e-3


def test_torch_compile_fullgraph_with_features():
    case = Case(dtype=torch.bfloat16, head_dim=64, gqa=True, varlen=True, window=True, sink=True, causal=True,
                seed=3)

    def f(q, k, v, sink):
        return flashcore.flash_attn_varlen_func(q, k, v, case.cu_q, case.cu_k, case.max_q, case.max_k,
                                                causal=True, window_size=case.window, learnable_sink=sink)

    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True, backend="inductor")
    n = sum(VARLEN_Q)
    got, want = compiled(case.q, case.k, case.v, case.sink), f(case.q, case.k, case.v, case.sink)
    assert torch.equal(got[:n], want[:n])
    torch._dynamo.reset()


def test_cuda_graph_capture_and_replay_with_features():
    case = Case(dtype=torch.float16, head_dim=128, gqa=True, varlen=True, softcap=True, sink=True, causal=True,
                seed=5)
    n = sum(VARLEN_Q)

    def f():
        return flashcore.flash_attn_varlen_func(case.q, case.k, case.v, case.cu_q, case.cu_k, case.max_q,
                                                case.max_k, causal=True, softcap=case.softcap,
                                                learnable_sink=case.sink)

    f()  # warm-up outside capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = f()
    for seed in (21, 22):
        new = Case(dtype=torch.float16, head_dim=128, gqa=True, varlen=True, seed=seed)
        for dst, src in ((case.q, new.q), (case.k, new.k), (case.v, new.v)):
            dst.copy_(src)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out[:n], f()[:n])


@pytest.mark.parametrize("head_dim,deterministic,forced_arch", [(64, True, None), (64, False, None), (128, True, None),
                                                                 (256, True, None), (64, True, "sm80_ptx"),
                                                                 (128, False, "sm80_ptx")], indirect=["forced_arch"])
def test_captured_packed_backward_zeroes_the_rows_past_the_sequences(head_dim, deterministic, forced_arch,
                                                                     monkeypatch):
    """Under CUDA-graph capture the backward cannot read cu_seqlens on the host, so the kernels zero
    the gradient rows past cu_seqlens[-1] (BwdParams::zero_packed_tails) instead of the op zeroing
    all of dq, dk and dv. The gradients start poisoned (NaN), so a row nothing wrote stays NaN. A
    replay after the last sequence shrank in place (its rows are now tail) must zero the longer
    tails. Rows inside the sequences equal the kernels' run without tail zeroing
    (attention_bwd_into: bitwise where deterministic; dk / dv always, dq within atomics' order).
    forced_arch: the library that runs both passes (None: by the GPU; sm80_ptx: the mma.sync
    backward's preprocess)."""
    case = Case(dtype=torch.bfloat16, head_dim=head_dim, gqa=True, varlen=True, causal=True, seed=41 + head_dim)
    out, lse = case.forward()
    monkeypatch.setattr(_attention, "_poison_outputs", True)  # the op's gradients start as NaN

    def op():
        return torch.ops.flashcore.attention_bwd(case.dout, case.q, case.k, case.v, out, lse, None, True, case.scale,
                                                 deterministic, -1, -1, 0.0, None, case.cu_q, case.cu_k, None,
                                                 case.max_q, case.max_k, case.out_resid)[:3]

    op()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        grads = op()
    for shrink in (0, 1):
        if shrink:  # the last sequence: 200 -> 150 query rows, 190 -> 100 keys
            case.cu_q[-1] -= 50
            case.cu_k[-1] -= 90
        graph.replay()
        torch.cuda.synchronize()
        end_q, end_k = int(case.cu_q[-1]), int(case.cu_k[-1])
        want = case.backward(out, lse, deterministic=deterministic)[:3]
        for name, got, ref, end in (("dq", grads[0], want[0], end_q), ("dk", grads[1], want[1], end_k),
                                    ("dv", grads[2], want[2], end_k)):
            assert (got[end:] == 0).all(), "%s: %s rows past the sequences (from %d) not zeroed" % (case.name, name, end)
            assert not torch.isnan(ref[:end]).any()
            if deterministic or name != "dq":
                assert torch.equal(got[:end], ref[:end]), "%s: %s differs from the run without tails" % (case.name, name)
            else:
                err = (got[:end].float() - ref[:end].float()).abs().max().item()
                assert err <= 1e-2 * ref[:end].float().abs().max().item(), "%s: dq off by %g" % (case.name, err)


# --- compute-sanitizer: a small case of each feature, forward and backward --------------------

SANITIZER_CASE = textwrap.dedent("""
    import torch, flashcore
    dev = "cuda"
    cu_q = torch.tensor([0, 17, 17, 100], dtype=torch.int32, device=dev)
    cu_k = torch.tensor([0, 40, 45, 110], dtype=torch.int32, device=dev)
    def leaf(*s, dtype):
        return torch.randn(*s, device=dev, dtype=dtype).requires_grad_(True)
    # (dtype, q/k head dim, v head dim): the last two have v's own head dim (192 / 128 runs the
    # sm90a 192 forward with V's third TMA column block wholly out of bounds, and the 256 backward)
    for dtype, d, dv in ((torch.float16, 64, 64), (torch.bfloat16, 128, 128), (torch.bfloat16, 40, 40),
                         (torch.float16, 96, 96), (torch.bfloat16, 192, 128), (torch.float16, 64, 128)):
        for kw in (dict(), dict(window_size=(20, 10)), dict(causal=True, window_size=(30, 0)), dict(softcap=2.0),
                   dict(learnable_sink=True), dict(causal=True, window_size=(16, 0), softcap=2.0, learnable_sink=True,
                                                   deterministic=True)):
            kw = dict(kw)
            sink = leaf(4, dtype=torch.float32) if kw.pop("learnable_sink", False) else None
            q, k, v = leaf(2, 67, 4, d, dtype=dtype), leaf(2, 131, 2, d, dtype=dtype), leaf(2, 131, 2, dv, dtype=dtype)
            out = flashcore.flash_attn_func(q, k, v, learnable_sink=sink, **kw)
            out.backward(torch.randn_like(out))
            q, k, v = leaf(103, 4, d, dtype=dtype), leaf(112, 1, d, dtype=dtype), leaf(112, 1, dv, dtype=dtype)
            out = flashcore.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 83, 65, learnable_sink=sink, **kw)
            out[:100].backward(torch.randn_like(out[:100]))
    # Pack-GQA (sm90a, head dims on the 64 kernels, no left window): the loop's dense groups of 2
    # pack at d64 / d40; here groups of 8 (MQA), causal and not, with a sink.
    for kw in (dict(), dict(causal=True, learnable_sink=True)):
        sink = leaf(8, dtype=torch.float32) if kw.pop("learnable_sink", False) else None
        q, k, v = leaf(2, 67, 8, 64, dtype=torch.bfloat16), leaf(2, 131, 1, 64, dtype=torch.bfloat16), leaf(
            2, 131, 1, 64, dtype=torch.bfloat16)
        out = flashcore.flash_attn_func(q, k, v, learnable_sink=sink, **kw)
        out.backward(torch.randn_like(out))
    torch.cuda.synchronize()
    print("sanitizer case done")
""")


@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
def test_compute_sanitizer_small_case_per_feature(tool, tmp_path):
    # "flashcore" is in the mangled name of every flashcore kernel (forward, backward, preprocess,
    # convert), and of no torch kernel.
    run_sanitizer(tool, SANITIZER_CASE, "flashcore", tmp_path)


if __name__ == "__main__":
    check_expected_gpu()
    ERRORS.reset()
    rc = pytest.main([__file__, "-q", "-rs", "-p", "no:cacheprovider", "--durations=8"]
                     + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else []))
    print_error_summary()
    sys.exit(rc)
