"""GPU correctness suite for flashcore.attention (instantiated per GPU kind by tests/gpu.bzl).

Oracle: a float64 reference on fresh random inputs. flashcore's relative error must be at most
2x the error of torch's math SDPA run in the same dtype on the same inputs. Outputs are
poisoned (NaN) before every run and every element must be written; NaN never passes.
The oracle's code is tests/fwd_oracle.py; the API and runtime behaviour around the kernels (the
direct eager path, autograd, torch.compile, CUDA graphs, compute-sanitizer) is
tests/gpu_attention_api_test.py.
"""

import os
import sys

import pytest
import torch

import flashcore
from flashcore import _attention
from flashcore.reference import attention_reference
from fwd_oracle import (ERRORS, check_against_oracle, fresh_inputs, oracle_case, print_error_summary, record_error,
                        rel_err, run_poisoned, torch_math_sdpa)
from gpu_suite_env import check_expected_gpu
from oracle_constants import DTYPES, SHAPES, UNIT_ROUNDOFF


@pytest.fixture(params=[None, "default"], ids=["tile_by_shape", "default_tile"])
def fwd_tile(request):
    """The sm90a forward's tile (kernels/hopper/tile_policy.h pick_fwd_tile): by shape, or one
    forced: the two-consumer default tile, which small shapes (at most SMs / 2 tiles of 128 rows)
    would otherwise not reach (they run the one-consumer few-tiles tile at head dims 64 and 128),
    or a test's own (indirect parametrization)."""
    _attention._set_forced_fwd_tile(request.param)
    try:
        yield request.param
    finally:
        _attention._set_forced_fwd_tile(None)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_matches_float64_reference(shape, causal, head_dim, dtype, fwd_tile):
    oracle_case(shape, causal, head_dim, dtype)


# The long-rows tiles on sm90a (kernels/hopper/tile_policy.h fwd_long_rows): head dim 64's 192 x 128
# with three consumer warpgroups taking pingpong turns round-robin, from 1024 query rows on (3072
# causal); 96's 192 x 96 (the same three consumers), from 2048 query rows on, causal or not (shorter
# rows run its 128 x 128 x 3 tile, as the other oracle tests do); 192's 128 x 112, unmasked only,
# from 4096 keys on (its causal instantiation has no long-rows tile: forced, it runs the default
# one). 64's and 96's run only where their 192-row tiles fill a wave of SMs (pick_fwd_tile), which
# of these shapes only 8 heads x 22 tiles does: the test runs each shape by shape and with the
# long-rows tile forced. Shapes: a ragged last tile (causal: 4096 and 4100 rows start their 192-row
# tiles 128 / 64 rows before the sequence, fwd_kernel.cuh kShiftTiles), Sq != Sk both ways, more
# tiles than SMs. The switch-edge test runs the lengths at each rule's edges by shape (query rows
# 1023 / 1024 full and 3071 / 3072 causal for 64, where its small grids stay on the default tile;
# 2047 / 2048 query rows for 96 on 12 heads, whose 2048-row grid is 12 x 11 = 132 tiles; 4095 /
# 4096 keys for 192).
LONG_ROWS_SHAPES = [(1, 2, 4096, 4096), (1, 1, 4100, 5000), (1, 1, 5000, 4100), (1, 8, 4096, 4096)]
TILE_SWITCH_EDGES = {64: [(1, 2, 1023, 300), (1, 2, 1024, 300), (1, 2, 3071, 3071), (1, 2, 3072, 3072)],
                     96: [(1, 12, 2047, 300), (1, 12, 2048, 300), (1, 12, 2047, 700), (1, 12, 2048, 700)],
                     192: [(1, 2, 300, 4095), (1, 2, 300, 4096), (1, 2, 700, 4095), (1, 2, 700, 4096)]}


@pytest.mark.parametrize("fwd_tile", [None, "long_rows"], ids=["tile_by_shape", "long_rows_tile"], indirect=True)
@pytest.mark.parametrize("shape", LONG_ROWS_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 80, 96, 192])  # 80: the 96 kernel's narrow mainloop (tile_policy.h)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_long_rows_tile_matches_float64(shape, causal, head_dim, dtype, fwd_tile):
    oracle_case(shape, causal, head_dim, dtype)


@pytest.mark.parametrize("edge", range(4))
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [56, 64, 80, 96, 168, 192])  # 56, 80, 168 predicated on 64, 96, 192
def test_tiles_at_their_switch_match_float64(edge, causal, head_dim):
    kernel = 64 if head_dim <= 64 else 96 if head_dim <= 96 else 192
    oracle_case(TILE_SWITCH_EDGES[kernel][edge], causal, head_dim, torch.bfloat16)


# Head dim 192's short-rows tile on sm90a (kernels/hopper/tile_policy.h fwd_short_rows: 128 x 64 for
# masked calls under 2048 keys; the default 128 x 80 from 2048 on). Each shape by shape and with the
# default and the short-rows tile forced (forcing it on a full call runs the default tile): a ragged
# last tile (1000 rows: the 128-row tiles shifted, fwd_kernel.cuh kShiftTiles), Sq != Sk both ways,
# the rule's edge (2047 / 2048 keys), more tiles than SMs. 168 runs predicated on the 192 kernel.
SHORT_ROWS_SHAPES = [(1, 2, 1000, 1000), (1, 1, 700, 1500), (2, 1, 1500, 600), (1, 1, 2047, 2047),
                     (1, 1, 2048, 2048), (2, 40, 1024, 1024)]


@pytest.mark.parametrize("fwd_tile", [None, "default", "short_rows"], ids=["tile_by_shape", "default_tile", "short_rows_tile"],
                         indirect=True)
@pytest.mark.parametrize("shape", SHORT_ROWS_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [168, 192])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_short_rows_tile_matches_float64(shape, causal, head_dim, dtype, fwd_tile):
    oracle_case(shape, causal, head_dim, dtype)


# The running max (kernels/common/online_softmax.cuh, kMaxSlack; the sm90a forward lets a row's
# max lag a block's by up to 8 in log2 units and skips O's rescale while it does): random inputs
# settle the max in the first key block, so these scores move it along the keys on purpose. One
# column of q is 4 and the same column of k follows a profile over the key positions: a ramp
# (a rise of 2-3 per key block: the max lags, then moves), steps (one rise under the slack, then
# one past it in the last key blocks) or a falling ramp (the first block keeps the max). Every head dim class the
# sm90a forward has, its long-rows tile, causal and not.
def rising_score_inputs(batch, heads, seqlen_q, seqlen_k, head_dim, dtype, profile, seed):
    q, k, v = fresh_inputs(batch, heads, seqlen_q, seqlen_k, head_dim, dtype, seed)
    pos = torch.arange(seqlen_k, device="cuda", dtype=torch.float32) / max(seqlen_k - 1, 1)
    # Rise over the keys in log2 units of the softmax: 4 * column * scale * log2(e).
    per_unit = 4 * head_dim ** -0.5 * 1.4426950408889634
    if profile == "ramp":
        column = pos * 60.0 / per_unit
    elif profile == "steps":
        # Half the keys at 0, then +3 (under the slack: the max stays), the last 1% at +9.5 (past
        # it: O is rescaled), each level carrying a fair share of the output.
        column = ((pos >= 0.5) * 3.0 + (pos >= 0.99) * 6.5) / per_unit
    else:  # falling
        column = (1 - pos) * 60.0 / per_unit
    q[..., 0] = 4
    k[..., 0] = column.to(dtype)[None, :, None]
    return q, k, v


@pytest.mark.parametrize("profile", ["ramp", "steps", "falling"])
@pytest.mark.parametrize("shape", [(1, 2, 1000, 3000), (1, 2, 4100, 4100)], ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 96, 128, 192, 256])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_running_max_moving_along_the_keys_matches_float64(profile, shape, causal, head_dim, dtype):
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v = rising_score_inputs(*shape, head_dim, dtype, profile, seed)
    ours, theirs = check_against_oracle(q, k, v, causal)
    record_error(dict(dtype="%s %s" % (dtype, profile), head_dim=head_dim, causal=causal, shape=shape, seed=seed,
                      flashcore=ours, torch_math=theirs))


# Head dims between the instantiations (issue 15): every multiple of 8 up to 128 runs on the 64, the
# 96 (forward) or the 128 kernels, which load zeros and store nothing past it. 96 is the forward's
# own (64-byte swizzled tiles on sm90a, a half 8-chunk group per row on the mma.sync kernels); 72,
# 80 and 88 run on it predicated, 120 on 128. The same oracle; shapes: S=1, odd S, non-multiples
# of the tiles, seqlen_q != seqlen_k both ways, and one larger grid.
ODD_HEAD_DIMS = [8, 40, 72, 80, 88, 96, 120]
PTX_ARCHS_FOR_GAPS = ["sm80_ptx"]  # and None: this GPU's own library
ODD_SHAPES = [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 129, 129), (1, 2, 17, 300), (1, 2, 300, 17), (1, 1, 1, 1000),
              (1, 1, 1000, 1), (1, 4, 255, 511), (4, 16, 512, 512)]


@pytest.mark.parametrize("shape", ODD_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_odd_head_dims_match_float64_reference(shape, causal, head_dim, dtype):
    oracle_case(shape, causal, head_dim, dtype)


def gapped(x, fill=float("nan"), gap=8):
    """x's values in a view of a buffer `gap` columns wider (the last dim), the gap holding `fill`:
    strides stay multiples of 8 elements, so the kernels take the view as it is. Returns (view, buffer)."""
    buf = torch.full(x.shape[:-1] + (x.shape[-1] + gap,), fill, dtype=x.dtype, device=x.device)
    view = buf[..., :x.shape[-1]]
    view.copy_(x)
    return view, buf


def check_columns_past_head_dim(q, k, v, causal, scale=None):
    """Inputs with NaN in the 8 columns past head_dim of every row (read one, and NaN reaches the
    output) and out / the O residual as views of NaN buffers 8 columns wider (write one, and the
    gap loses its NaN): the kernels read and write exactly head_dim columns. Then the oracle."""
    d = q.shape[-1]
    scale = scale if scale is not None else d ** -0.5
    (qg, _), (kg, _), (vg, _) = gapped(q), gapped(k), gapped(v)
    out, out_buf = gapped(torch.zeros_like(q))
    out.fill_(float("nan"))
    resid, resid_buf = gapped(torch.zeros_like(q))
    resid.fill_(float("nan"))
    lse = torch.full((q.shape[0], q.shape[2], q.shape[1]), float("nan"), device=q.device, dtype=torch.float32)
    _attention._launch(qg, kg, vg, out, lse, causal, scale, out_resid=resid)
    torch.cuda.synchronize()
    assert torch.isnan(out_buf[..., d:]).all(), "out: a column past head_dim was written"
    assert torch.isnan(resid_buf[..., d:]).all(), "O residual: a column past head_dim was written"
    assert torch.isfinite(out).all(), "out: NaN (a column past head_dim of an input was read) or unwritten"
    assert torch.isfinite(resid).all(), "O residual: not finite or unwritten"
    ref_out, ref_lse = attention_reference(q, k, v, causal=causal, softmax_scale=scale)
    seen = ref_lse.isfinite().transpose(1, 2)[..., None].expand_as(out)
    bound = 2 * max(rel_err(torch_math_sdpa(q, k, v, causal, scale)[seen], ref_out[seen]), UNIT_ROUNDOFF[q.dtype])
    assert rel_err(out[seen], ref_out[seen]) <= bound
    # The residual is what the rounding of O dropped: O + residual is O to ~16 more bits.
    assert rel_err((out.double() + resid.double())[seen], ref_out[seen]) <= bound


@pytest.mark.parametrize("forced_arch", [None] + PTX_ARCHS_FOR_GAPS, indirect=True)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS + [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_columns_past_head_dim_are_neither_read_nor_written(forced_arch, causal, head_dim, dtype):
    for i, (b, h, sq, sk) in enumerate([(2, 3, 67, 131), (1, 2, 131, 67), (1, 2, 1, 77)]):
        q, k, v = fresh_inputs(b, h, sq, sk, head_dim, dtype, 100 * head_dim + i)
        check_columns_past_head_dim(q, k, v, causal)


@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
def test_odd_head_dim_public_api_default_scale_and_lse(head_dim):
    q, k, v = fresh_inputs(2, 4, 133, 200, head_dim, torch.bfloat16, head_dim)
    out, lse = flashcore.attention(q, k, v, causal=True, return_lse=True)  # the direct path
    assert out.shape == q.shape and lse.shape == (2, 4, 133)
    want_out, want_lse = run_poisoned(q, k, v, True, head_dim ** -0.5)
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
    out2 = flashcore.flash_attn_func(q, k, v, causal=True)  # the feature front end: the same kernel
    assert torch.equal(out2, out)


# Head dims above 128 (issue 15 item 1): 256 on every arch, and 192 in the sm90a forward; every
# multiple of 8 from 136 runs on the next one up (kernels/hopper/tile_policy.h,
# kernels/sm80/tile_policy.h). The same oracle on this GPU's library and on the portable PTX one
# (the sm80/sm89 code), the columns past head_dim, and the public API. Causal shapes whose rows
# leave a partial tile run shifted tiles at 192 and 256 (fwd_kernel.cuh kShiftTiles: 300 rows start
# 80 / 64 rows before the sequence, 17 rows 96 / 64).
WIDE_HEAD_DIMS = [136, 192, 200, 208, 216, 256]  # 200, 208: the 256 kernel's narrow mainloop; 216 its full one
WIDE_SHAPES = [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 129, 129), (1, 2, 17, 300), (1, 2, 300, 17), (1, 1, 1, 1000),
               (1, 1, 1000, 1), (1, 4, 255, 511), (2, 2, 1000, 1000), (4, 16, 512, 512)]


@pytest.mark.parametrize("forced_arch", [None] + PTX_ARCHS_FOR_GAPS, indirect=True)
@pytest.mark.parametrize("shape", WIDE_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", WIDE_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_wide_head_dims_match_float64_reference(forced_arch, shape, causal, head_dim, dtype):
    oracle_case(shape, causal, head_dim, dtype, forced_arch)


@pytest.mark.parametrize("forced_arch", [None] + PTX_ARCHS_FOR_GAPS, indirect=True)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", WIDE_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_wide_head_dims_columns_past_head_dim(forced_arch, causal, head_dim, dtype):
    for i, (b, h, sq, sk) in enumerate([(2, 3, 67, 131), (1, 2, 131, 67), (1, 2, 1, 77)]):
        q, k, v = fresh_inputs(b, h, sq, sk, head_dim, dtype, 100 * head_dim + i)
        check_columns_past_head_dim(q, k, v, causal)


@pytest.mark.parametrize("head_dim", [192, 256])
def test_wide_head_dims_public_api(head_dim):
    q, k, v = fresh_inputs(2, 4, 133, 200, head_dim, torch.bfloat16, head_dim)
    out, lse = flashcore.attention(q, k, v, causal=True, return_lse=True)
    want_out, want_lse = run_poisoned(q, k, v, True, head_dim ** -0.5)
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
    assert torch.equal(flashcore.flash_attn_func(q, k, v, causal=True), out)


# Zero and negative softmax scales through masked key blocks (kernels/common/online_softmax.cuh
# step<true>: hidden scores become -inf, +inf under a negative scale, and a zero scale is nudged
# to 1e-30 so that 0 * inf never reaches exp2). Causal with Sq != Sk both ways (ragged last blocks,
# rows that see no key), on this GPU's library and the portable sm80 one.
@pytest.mark.parametrize("forced_arch", [None] + PTX_ARCHS_FOR_GAPS, indirect=True)
@pytest.mark.parametrize("shape", [(2, 3, 300, 517), (1, 2, 517, 300)], ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("scale", [0.0, -0.3, 0.3])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
def test_zero_and_negative_scales_through_masked_blocks(forced_arch, shape, scale, head_dim):
    q, k, v = fresh_inputs(*shape, head_dim, torch.bfloat16, int.from_bytes(os.urandom(4), "little"))
    check_against_oracle(q, k, v, True, scale)


# The portable library on this GPU: the mma.sync code compiled to compute_80 PTX only, JIT-compiled
# by the driver (what select_arch picks on GPUs newer than Hopper), forced by name here
# (kernels/defs.bzl PTX_ARCHS).
PTX_ARCHS = ["sm80_ptx"]
PTX_SHAPES = [(2, 3, 17, 17), (1, 2, 129, 129), (2, 2, 1000, 1000), (1, 2, 300, 17), (1, 1, 1, 1000),
              (1, 4, 255, 511), (8, 32, 512, 512)]


@pytest.fixture
def forced_arch(request):
    _attention._set_forced_arch(request.param)
    try:
        yield request.param
    finally:
        _attention._set_forced_arch(None)


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (2, 3, 17, 17), (1, 2, 300, 17), (1, 1, 1, 1000), (1, 4, 255, 511)],
                         ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", ODD_HEAD_DIMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_variant_odd_head_dims_match_float64_reference(forced_arch, shape, causal, head_dim, dtype):
    oracle_case(shape, causal, head_dim, dtype, forced_arch)


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("shape", PTX_SHAPES, ids=lambda s: "b%dh%dq%dk%d" % s)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_variant_matches_float64_reference(forced_arch, shape, causal, head_dim, dtype):
    oracle_case(shape, causal, head_dim, dtype, forced_arch)


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_ptx_variant_strided_inputs_and_custom_scale(forced_arch, head_dim, dtype):
    # The sm80-family forward's online softmax (kernels/common/online_softmax.cuh) takes the raw
    # row min for a negative scale: that path, strided inputs, masked blocks (seqlen_q != seqlen_k)
    # and rows that see no key (causal, seqlen_q > seqlen_k) go through the oracle on this code too.
    qkv = torch.randn(2, 200, 3, 4, head_dim, device="cuda", dtype=dtype)
    q, k, v = qkv.unbind(2)
    assert not q.is_contiguous()
    check_against_oracle(q, k, v, causal=True, scale=0.3)
    check_against_oracle(q, k, v, causal=False, scale=-0.7)
    check_against_oracle(q[:, :150], k, v, causal=True, scale=-0.7)
    check_against_oracle(q, k[:, :60], v[:, :60], causal=True, scale=-0.7)


def _kernel_names(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    # "fwd_kernel": flash_fwd_kernel (sm80 family, PTX libraries included) and hopper::fwd_kernel.
    return [e.key for e in prof.key_averages() if "fwd_kernel" in e.key]


@pytest.mark.parametrize("forced_arch", PTX_ARCHS, indirect=True)
def test_forced_arch_runs_that_library(forced_arch):
    # The Arch enum value is a template argument of the kernel: 1080 for the PTX library.
    q, k, v = fresh_inputs(1, 2, 100, 100, 64, torch.float16, 5)
    enum = {"sm80_ptx": "1080"}[forced_arch]
    names = _kernel_names(lambda: flashcore.attention(q, k, v))
    assert names and all("Arch)%s" % enum in n for n in names), names
    _attention._set_forced_arch(None)
    names = _kernel_names(lambda: flashcore.attention(q, k, v))
    assert names and not any("Arch)%s" % enum in n for n in names), names
    if flashcore.select_arch(torch.cuda.get_device_capability()) == "sm90a":
        assert all("hopper" in n for n in names), names  # production Hopper path: the TMA/wgmma kernel


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_strided_inputs_and_custom_scale(dtype):
    # q, k, v as views of one packed (batch, seq, 3, heads, dim) tensor: non-contiguous strides.
    qkv = torch.randn(2, 200, 3, 4, 64, device="cuda", dtype=dtype)
    q, k, v = qkv.unbind(2)
    assert not q.is_contiguous()
    check_against_oracle(q, k, v, causal=True, scale=0.3)
    check_against_oracle(q, k, v, causal=False, scale=-0.7)


if __name__ == "__main__":
    check_expected_gpu()
    ERRORS.reset()
    rc = pytest.main([__file__, "-q", "-rs", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else []))
    print_error_summary()
    sys.exit(rc)
