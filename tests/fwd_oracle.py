"""The forward suite's oracle (tests/gpu_attention_test.py, which states the rule): fresh inputs,
the poisoned kernel run, torch's math SDPA in the same dtype, the error measure, one oracle case,
and the error record whose worst ratios the suite prints. A module of its own, as the backward's
bwd_oracle.py, so that the API and runtime suite (tests/gpu_attention_api_test.py) takes the same
inputs and error measure without importing a test module."""

import os

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashcore import _attention
from flashcore.reference import attention_reference, causal_mask
from error_log import ErrorLog
from oracle_constants import UNIT_ROUNDOFF


ERRORS = ErrorLog("flashcore_errors.jsonl")


def record_error(entry):
    ERRORS.record(entry)


def print_error_summary():
    """Worst flashcore/torch error ratios of this run (the numbers docs/results quotes)."""
    rows = ERRORS.rows()
    if rows is None:
        return
    for r in rows:
        r["ratio"] = r["flashcore"] / max(r["torch_math"], 1e-30)
    ERRORS.print_worst(
        rows, "\nflashcore rel. error vs float64 / torch math SDPA (same dtype) rel. error; worst first:",
        lambda r: "  %-15s d%-3d %-6s b%dh%dq%dk%-5d flashcore %.3e  torch %.3e  ratio %.2f" % (
            r["dtype"], r["head_dim"], "causal" if r["causal"] else "full", *r["shape"],
            r["flashcore"], r["torch_math"], r["ratio"]), 8, "cases")


def fresh_inputs(batch, heads, seqlen_q, seqlen_k, head_dim, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape_q = (batch, seqlen_q, heads, head_dim)
    shape_k = (batch, seqlen_k, heads, head_dim)
    return tuple(torch.randn(s, generator=g, device="cuda", dtype=torch.float32).to(dtype)
                 for s in (shape_q, shape_k, shape_k))


def run_poisoned(q, k, v, causal, scale):
    out = torch.full_like(q, float("nan"))
    lse = torch.full((q.shape[0], q.shape[2], q.shape[1]), float("nan"), device=q.device, dtype=torch.float32)
    _attention.attention_into(q, k, v, out, lse, causal, scale)
    torch.cuda.synchronize()
    return out, lse


def torch_math_sdpa(q, k, v, causal, scale):
    """torch's math SDPA computed in the inputs' dtype (no fp32 upcast inside: torch >= 2.5
    upcasts by default, which would make it a float32 reference rather than torch's own error in
    this dtype), bottom-right causal mask as an explicit mask."""
    mask = causal_mask(q.shape[1], k.shape[1], device=q.device) if causal else None
    allowed = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    try:
        with sdpa_kernel(SDPBackend.MATH):
            out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                 attn_mask=mask, scale=scale)
    finally:
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(allowed)
    return out.transpose(1, 2)


def rel_err(x, ref):
    return ((x.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def check_against_oracle(q, k, v, causal, scale=None):
    scale_val = scale if scale is not None else q.shape[-1] ** -0.5
    out, lse = run_poisoned(q, k, v, causal, scale_val)
    ref_out, ref_lse = attention_reference(q, k, v, causal=causal, softmax_scale=scale_val)
    assert not torch.isnan(out).any(), "NaN in out (unwritten or computed)"
    assert not torch.isnan(lse).any(), "NaN in lse (unwritten or computed)"
    assert torch.isfinite(out).all(), "inf in out"

    seen = ref_lse.isfinite()  # (b, h, sq): rows that see at least one key
    if (~seen).any():  # causal with seqlen_q > seqlen_k: rows that see no key
        rows_out = out.transpose(1, 2)[~seen]
        assert (rows_out == 0).all(), "rows that see no key must be 0"
        assert (lse[~seen] == float("-inf")).all(), "rows that see no key must have lse -inf"
    seen_bshd = seen.transpose(1, 2)[..., None].expand_as(out)
    ours = rel_err(out[seen_bshd], ref_out[seen_bshd])
    theirs = rel_err(torch_math_sdpa(q, k, v, causal, scale_val)[seen_bshd], ref_out[seen_bshd])
    bound = 2 * max(theirs, UNIT_ROUNDOFF[q.dtype])
    assert ours <= bound, "flashcore rel err %.3g > 2x torch math SDPA's %.3g" % (ours, theirs)
    lse_err = (lse[seen].double() - ref_lse[seen]).abs().max().item() if seen.any() else 0.0
    assert lse_err <= 1e-3 * max(1.0, ref_lse[seen].abs().max().item()), "lse err %.3g" % lse_err
    return ours, theirs


def oracle_case(shape, causal, head_dim, dtype, arch=None):
    """One oracle case on fresh random inputs (a new seed each run, recorded with the errors);
    arch: the forced library's name, or None for this GPU's own."""
    batch, heads, sq, sk = shape
    seed = int.from_bytes(os.urandom(4), "little")
    q, k, v = fresh_inputs(batch, heads, sq, sk, head_dim, dtype, seed)
    ours, theirs = check_against_oracle(q, k, v, causal)
    label = str(dtype) if arch is None else "%s %s" % (arch, dtype)
    record_error(dict(dtype=label, head_dim=head_dim, causal=causal, shape=shape, seed=seed,
                      flashcore=ours, torch_math=theirs))
