"""compute-sanitizer memcheck, racecheck, initcheck and synccheck over every kernel instantiation
this GPU can run (instantiated per GPU kind by tests/gpu.bzl as //tests:gpu_<kind>_sanitizer).

The instantiations come from flashcore.build_info() (forward 'kernels', backward 'bwd_kernels':
(arch, dtype, head_dim, causal)), so a new library is swept without editing this file (a new
instantiated head dim needs its entry in PREDICATED_HEAD_DIMS; the test says so). Runnable here: the library select_arch picks for this GPU (its SASS) and every PTX
library (JIT-compiled for any GPU >= 8.0), each reached through the test-only forced-arch switch;
SASS libraries of other GPUs cannot run here and are listed as not covered. For each one, on
small shapes (seqlen_q != seqlen_k both ways, so causal rows that see no key occur; one query
row; a packed-qkv strided layout; k/v broadcast over the batch with stride 0; views of buffers 8
columns wider with NaN past head_dim), at the instantiation's head dim and at one below it that
it runs predicated (PREDICATED_HEAD_DIMS, issue 15): the forward with
and without lse, and the backward with atomic and with deterministic dQ, through the gradient of
lse too. Each is run once per entry of FEATURE_VARIANTS (the run-time features: plain; GQA with
a sliding window and softcap; packed varlen with GQA, a window, softcap, a sink and seqused_k;
softcap alone; GQA with a sink and no window). The four tools run at once, one process each, and
the test fails on any report of any of them (tests/sanitizer_check.py), or on an output element
the kernels left unwritten.
FLASHCORE_SANITIZER_TOOLS / FLASHCORE_SANITIZER_SHARD run a part of the sweep (some tools, every
n-th instantiation: sanitizer_check.sweep_selection), for runs under a shorter time limit than the
whole sweep needs; the test prints which part it ran.

initcheck and the TMA: compute-sanitizer's initcheck does not see the Hopper kernels'
cp.async.bulk.tensor stores, so every later read of a TMA-written output was reported (measured:
docs/results/2026-11-23-h100-final.md). The case therefore has flashcore allocate its outputs
filled with NaN (the test-only _attention._set_poison_outputs): initcheck still judges every other
read -- inputs, lse, the backward's D, dQ accumulator, semaphores, the O residual -- and each
output is checked finite afterwards, so an element no kernel wrote fails the test instead.
"""

import json
import os
import sys
import textwrap

import pytest
import torch

import flashcore
from sanitizer_check import run_sanitizers, sweep_selection
from gpu_suite_env import check_expected_gpu


# The run-time feature variants, each run for every instantiation, forward and backward: {} is the
# plain call; "gqa": k/v with one head for q's two; "sink": a learnable sink per head; "varlen":
# packed sequences through flash_attn_varlen_func (its own lengths, seqused_k below the keys of
# one sequence); the rest are flashcore.attention's keywords. The second and fourth have no sink so
# that their backward runs the sm90a packed-softcap kernels (kernels/hopper/bwd_launch.cuh): the
# second with a window, so the masked one at every instantiation; the fourth without, so the
# unmasked one at the non-causal instantiations (its mask pass on the packed pairs runs on the key
# tails, bwd_scores.cuh). The third keeps softcap with a sink's gradient (the sink kernel). The
# fifth, GQA without a window, runs the sm90a pack-GQA forward (kernels/hopper/fwd_launch.cuh) at
# the head dims on the 64 kernels.
FEATURE_VARIANTS = [
    {},
    {"gqa": True, "window_size": [20, 3], "softcap": 30.0},
    {"varlen": True, "gqa": True, "window_size": [40, 7], "softcap": 5.0, "sink": True},
    {"softcap": 30.0},
    {"gqa": True, "sink": True},
]


# Head dims each instantiation also runs (issue 15: multiples of 8 below it, predicated), swept with
# it: per (kernel head dim, dtype), one that leaves the last column block partly empty (64 columns;
# 32 at 96, whose sm90a tiles are 64-byte swizzled) and that runs on that instantiation in both
# passes where it has both (hence 104, not 72, for 128: the forward runs 72..96 on 96).
PREDICATED_HEAD_DIMS = {64: {"fp16": 40, "bf16": 8}, 128: {"fp16": 104, "bf16": 120},
                        # 96: the forward only, every arch (72..96 run on the backward's 128)
                        96: {"fp16": 80, "bf16": 88},
                        # 192: the sm90a forward only; 256: every arch, both passes
                        192: {"fp16": 136, "bf16": 184}, 256: {"fp16": 200, "bf16": 248}}


def runnable_instantiations(info, capability):
    """(pass, arch, dtype, head_dim, causal) this GPU can run, and the archs it cannot."""
    native = flashcore.select_arch(capability)
    runnable, skipped = [], set()
    for pass_, key in (("fwd", "kernels"), ("bwd", "bwd_kernels")):
        for k in info[key]:
            if k["arch"] == native or k["arch"].endswith("_ptx"):
                runnable.append((pass_, k["arch"], k["dtype"], k["head_dim"], k["causal"]))
            else:
                skipped.add(k["arch"])
    return sorted(runnable), sorted(skipped)


CASE = textwrap.dedent("""
    import json, sys
    import torch
    import flashcore
    from flashcore import _attention

    todo = [tuple(x) for x in json.loads(__TODO__)]
    features = json.loads(__FEATURES__)
    predicated = {int(d): v for d, v in json.loads(__PREDICATED__).items()}
    _attention._set_poison_outputs(True)  # outputs start as NaN: see the module docstring
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16}
    g = torch.Generator(device="cuda").manual_seed(0)

    def randn(*shape, dtype):
        return torch.randn(*shape, generator=g, device="cuda", dtype=torch.float32).to(dtype)

    def layouts(dtype, d):
        # (q, k, v): seqlen_q < seqlen_k and > (causal rows that see no key), one query row,
        # packed qkv (strided views), k/v broadcast over the batch (batch stride 0).
        yield randn(1, 67, 2, d, dtype=dtype), randn(1, 131, 2, d, dtype=dtype), randn(1, 131, 2, d, dtype=dtype)
        yield randn(1, 131, 2, d, dtype=dtype), randn(1, 67, 2, d, dtype=dtype), randn(1, 67, 2, d, dtype=dtype)
        yield randn(2, 1, 2, d, dtype=dtype), randn(2, 77, 2, d, dtype=dtype), randn(2, 77, 2, d, dtype=dtype)
        yield randn(2, 90, 3, 2, d, dtype=dtype).unbind(2)
        kv = randn(1, 45, 2, d, dtype=dtype)
        yield randn(2, 45, 2, d, dtype=dtype), kv.expand(2, -1, -1, -1), kv.expand(2, -1, -1, -1)
        # views of buffers 8 columns wider with NaN in the gap: a read past head_dim reaches the outputs
        wide = [randn(1, n, 2, d + 8, dtype=dtype) for n in (50, 93, 93)]
        for w in wide:
            w[..., d:] = float("nan")
        yield tuple(w[..., :d] for w in wide)

    def varlen_layouts(dtype, d):
        # Packed: a short, a one-row and a long sequence, keys longer and shorter than queries;
        # seqused_k stops the first sequence's keys early. Two rows of NaN past the packed data.
        lens_q, lens_k = [67, 1, 131], [131, 77, 45]
        cu_q = torch.tensor([0, 67, 68, 199], dtype=torch.int32, device="cuda")
        cu_k = torch.tensor([0, 131, 208, 253], dtype=torch.int32, device="cuda")
        used = torch.tensor([100, 77, 45], dtype=torch.int32, device="cuda")
        q, k, v = (randn(n + 2, 2, d, dtype=dtype) for n in (199, 253, 253))
        for t, n in ((q, 199), (k, 253), (v, 253)):
            t[n:] = float("nan")
        yield q, k, v, dict(cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=131, max_seqlen_k=131), 199
        yield q, k, v, dict(cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=131, max_seqlen_k=131,
                            seqused_k=used), 199

    def written(name, t, rows=None):
        # Outputs were NaN before the kernels ran (poisoned): any NaN left is an unwritten element.
        t = t if rows is None else t[:rows]
        if not torch.isfinite(t).all():
            raise AssertionError("%s has %d non-finite elements after the call" % (name, (~torch.isfinite(t)).sum()))

    def call(q, k, v, causal, kwargs, deterministic, sink, packed):
        kw = {k_: v_ for k_, v_ in kwargs.items() if k_ not in ("gqa", "sink", "varlen")}
        if "window_size" in kw:
            kw["window_size"] = tuple(kw["window_size"])
        if packed is not None:
            out, lse, _ = flashcore.flash_attn_varlen_func(q, k, v, causal=causal, deterministic=deterministic,
                                                            learnable_sink=sink, return_attn_probs=True,
                                                            **packed, **kw)
            return out, lse
        return flashcore.attention(q, k, v, causal=causal, return_lse=True, deterministic=deterministic,
                                   learnable_sink=sink, **kw)

    def run(pass_, i, q, k, v, causal, kwargs, packed=None, rows=None):
        if kwargs.get("gqa"):
            k, v = k[..., :1, :], v[..., :1, :]
        sink = torch.randn(q.shape[-2], generator=g, device="cuda") if kwargs.get("sink") else None
        if pass_ == "fwd":
            out, _ = call(q, k, v, causal, kwargs, False, sink, packed)
            written("out", out, rows)
            if i == 0 and packed is None and not kwargs:  # the null-lse path (the kernels must skip it)
                written("out", flashcore.attention(q, k, v, causal=causal))
            return
        for deterministic in (False, True):
            # detach() keeps each layout's strides (the stride-0 broadcast included)
            leaves = [t.detach().requires_grad_(True) for t in (q, k, v)]
            if sink is not None:
                leaves.append(sink.detach().requires_grad_(True))
            out, lse = call(*leaves[:3], causal, kwargs, deterministic, leaves[3] if sink is not None else None, packed)
            if i == 0 and not deterministic:  # through out alone: no dlse
                torch.autograd.grad(out, leaves, torch.randn_like(out), retain_graph=True)
            if rows is not None:  # packed: the rows past the sequences are no part of the result
                out, lse = out[:rows], lse[:, :rows]
            seen = torch.isfinite(lse)  # rows that see no key have lse -inf
            loss = (out.float() * torch.randn_like(out).float()).sum() + lse[seen].sum()
            for name, grad in zip(("dq", "dk", "dv", "dsink"), torch.autograd.grad(loss, leaves)):
                written(name, grad, rows if name == "dq" else None)

    import time
    start = time.time()
    done, rejected = [], []
    for pass_, arch, dtype_name, kernel_d, causal in todo:
        _attention._set_forced_arch(arch)
        for d in (kernel_d, predicated[kernel_d][dtype_name]):  # its own head dim, then one it predicates
            for kwargs in features:
                if kwargs.get("varlen"):
                    cases = [(q, k, v, packed, rows) for q, k, v, packed, rows in varlen_layouts(dtypes[dtype_name], d)]
                else:
                    cases = [(q, k, v, None, None) for q, k, v in layouts(dtypes[dtype_name], d)]
                for i, (q, k, v, packed, rows) in enumerate(cases):
                    try:
                        run(pass_, i, q, k, v, causal, kwargs, packed, rows)
                    except (RuntimeError, AssertionError, ValueError) as e:  # reported by the test
                        rejected.append([pass_, arch, dtype_name, d, causal, i, kwargs,
                                         "%s: %s" % (type(e).__name__, str(e)[:300])])
        d = kernel_d
        torch.cuda.synchronize()
        done.append([pass_, arch, dtype_name, d, causal])
        print("swept %s %s %s d%d %s at %.0f s" % (pass_, arch, dtype_name, d, "causal" if causal else "full",
                                                   time.time() - start), flush=True)
    _attention._set_forced_arch(None)
    print("covered " + json.dumps(done))
    print("rejected " + json.dumps(rejected))
    print("sanitizer case done")
""")


def test_every_runnable_instantiation_is_clean_under_all_four_sanitizers(tmp_path):
    info = flashcore.build_info()
    todo, skipped = runnable_instantiations(info, torch.cuda.get_device_capability())
    # Never vacuous: this GPU's own library and the portable PTX one, forward and backward, each
    # (dtype, head_dim, causal) of them.
    per_pass = {(p, a) for p, a, *_ in todo}
    assert {("fwd", "sm80_ptx"), ("bwd", "sm80_ptx")} <= per_pass, per_pass
    assert len(todo) == sum(len(info[k]) for k in ("kernels", "bwd_kernels")) - sum(
        1 for k in ("kernels", "bwd_kernels") for x in info[k] if x["arch"] in skipped)
    print("sweeping %d instantiations (%s) x %d feature variants; not runnable on this GPU: %s"
          % (len(todo), ", ".join(sorted("%s %s" % pa for pa in per_pass)), len(FEATURE_VARIANTS),
             ", ".join(skipped) or "none"))
    assert {d for _, _, _, d, _ in todo} <= set(PREDICATED_HEAD_DIMS), "a new head dim needs its predicated one"
    # A part of the sweep (sanitizer_check.sweep_selection: FLASHCORE_SANITIZER_TOOLS / _SHARD), said
    # in the output so that a part is never taken for the whole.
    tools, shard, shards = sweep_selection()
    todo = todo[shard::shards]
    assert todo, "shard %d/%d of the sweep holds no instantiation" % (shard, shards)
    print("this run: tools %s, shard %d/%d: %d instantiations%s"
          % (",".join(tools), shard, shards, len(todo), "" if shards == 1 else " (a part of the sweep)"))
    case = CASE.replace("__TODO__", repr(json.dumps(todo))).replace("__FEATURES__", repr(json.dumps(FEATURE_VARIANTS)))
    case = case.replace("__PREDICATED__", repr(json.dumps(PREDICATED_HEAD_DIMS)))
    # "flashcore" is in every kernel's mangled name (namespaces flashcore::fwd, ::bwd, ::hopper):
    # the sanitizers check all of flashcore's kernels and none of torch's.
    logs = run_sanitizers(tools, case, "flashcore", tmp_path)
    for tool, log in logs.items():
        covered = [line for line in log.splitlines() if line.startswith("covered ")]
        assert covered, "%s: the case printed no coverage line" % tool
        assert sorted(tuple(x) for x in json.loads(covered[-1][len("covered "):])) == todo, tool
        rejected = [line for line in log.splitlines() if line.startswith("rejected ")]
        assert rejected and json.loads(rejected[-1][len("rejected "):]) == [], \
            "%s: calls that raised instead of running, or left an output unwritten: %s" % (tool, rejected[-1:])


if __name__ == "__main__":
    check_expected_gpu()
    sys.exit(pytest.main([__file__, "-q", "-rs", "-s", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
