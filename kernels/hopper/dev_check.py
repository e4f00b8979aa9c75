"""Hopper forward development check: correctness against the float64 reference, then kernel time
next to torch's flash (FA2) and cuDNN backends, in one process. Runs on the GPU machine against an
extension built with --config=gpu_target (the env variable FLASHCORE_VARIANT only labels the run):

    PYTHONPATH=<bundle>/runfiles/_main/py python3 kernels/hopper/dev_check.py [--time] [--full_grid]

Correctness: ||out - ref|| / ||ref|| (fp32 norm) must be <= 2x torch math SDPA's in the same dtype
(+1e-6), lse within 1e-3 (abs) of the reference where finite and -inf where the reference is, no
NaN, every element written (outputs poisoned with NaN). Timing: CUDA-graph replay of 20 calls
(kernel time), median of 10 replays, TFLOP/s = 4*B*H*Sq*Sk*D / t (halved for causal).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys

import torch


def reference(q, k, v, causal):
    scale = 1.0 / math.sqrt(q.shape[-1])
    q64, k64, v64 = (t.double().transpose(1, 2) for t in (q, k, v))
    s = q64 @ k64.transpose(-1, -2) * scale
    if causal:
        i = torch.arange(q.shape[1], device=q.device)[:, None]
        j = torch.arange(k.shape[1], device=q.device)[None, :]
        s = s.masked_fill(~(j <= i + k.shape[1] - q.shape[1]), float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.nan_to_num(torch.exp(s - lse[..., None].clamp_min(-1e300)), nan=0.0)
    return (p @ v64).transpose(1, 2), lse


def math_sdpa(q, k, v, causal):
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    mask = None
    if causal:
        i = torch.arange(q.shape[1], device=q.device)[:, None]
        j = torch.arange(k.shape[1], device=q.device)[None, :]
        mask = j <= i + k.shape[1] - q.shape[1]
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        out = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask)
    return torch.nan_to_num(out.transpose(1, 2), nan=0.0)


def rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


CASES = [  # batch, seqlen_q, seqlen_k, heads
    (1, 1, 1, 1), (2, 67, 131, 3), (2, 131, 67, 3), (1, 128, 128, 2), (1, 257, 1000, 2),
    (3, 1000, 257, 2), (2, 1024, 1024, 4), (1, 300, 300, 8), (1, 2048, 4096, 2),
]


def check(schedule):
    import flashcore
    from flashcore import _attention

    worst = 0.0
    fails = []
    gen = torch.Generator(device="cuda").manual_seed(hash(schedule) % 1000)
    for dtype in (torch.float16, torch.bfloat16):
        for d in (64, 128):
            for causal in (False, True):
                for (b, sq, sk, h) in CASES:
                    q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype, generator=gen)
                    k = torch.randn(b, sk, h, d, device="cuda", dtype=dtype, generator=gen)
                    v = torch.randn(b, sk, h, d, device="cuda", dtype=dtype, generator=gen)
                    out = torch.full_like(q, float("nan"))
                    lse = torch.full((b, h, sq), float("nan"), device="cuda")
                    _attention.attention_into(q, k, v, out, lse, causal, 1.0 / math.sqrt(d))
                    torch.cuda.synchronize()
                    ref, ref_lse = reference(q, k, v, causal)
                    err = rel(out, ref)
                    terr = rel(math_sdpa(q, k, v, causal), ref)
                    ratio = err / (terr + 1e-6)
                    worst = max(worst, ratio)
                    finite = torch.isfinite(ref_lse)
                    lse_ok = bool(torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse))) and (
                        (lse[finite].double() - ref_lse[finite]).abs().max().item() < 1e-3 if finite.any() else True)
                    bad = (torch.isnan(out).any().item() or torch.isnan(lse).any().item() or ratio > 2.0
                           or not lse_ok)
                    if bad:
                        fails.append((str(dtype), d, causal, (b, sq, sk, h), err, terr, lse_ok))
    print(f"[{schedule}] correctness: {'PASS' if not fails else 'FAIL'}; worst err/torch-err ratio {worst:.3f}")
    for f in fails[:20]:
        print("   FAIL", f)
    return not fails


def graph_ms(fn, reps=20):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    times = []
    for _ in range(10):
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        e.record()
        e.synchronize()
        times.append(a.elapsed_time(e) / reps)
    times.sort()
    return times[len(times) // 2]


def timing(schedule, rows):
    import flashcore
    from torch.nn.attention import SDPBackend, sdpa_kernel

    print(f"[{schedule}] {'case':34s} {'flashcore':>9s} {'FA2':>7s} {'cuDNN':>7s}  fc/cuDNN  fc/FA2")
    for dtype, d, causal, s in rows:
        b, h = 16384 // s, 2048 // d
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype) for _ in range(3))
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        res = {"flashcore": graph_ms(lambda: flashcore.attention(q, k, v, causal=causal))}
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
        for name, be in (("FA2", SDPBackend.FLASH_ATTENTION), ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
            with sdpa_kernel(be):
                res[name] = graph_ms(lambda: torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal))
        tf = {n: flops / (ms * 1e-3) / 1e12 for n, ms in res.items()}
        label = f"{str(dtype)[6:]} d{d} S{s} {'causal' if causal else 'full'} B{b}H{h}"
        print(f"[{schedule}] {label:34s} {tf['flashcore']:9.0f} {tf['FA2']:7.0f} {tf['cuDNN']:7.0f}"
              f"  {tf['flashcore'] / tf['cuDNN']:8.2f} {tf['flashcore'] / tf['FA2']:7.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schedules", default=os.environ.get("FLASHCORE_VARIANT", "hopper"),
                    help="labels of the runs (one child process each)")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--full_grid", action="store_true")
    ap.add_argument("--_child", default="")
    args = ap.parse_args()
    if args._child:
        ok = check(args._child)
        if args.time:
            if args.full_grid:
                rows = [(dt, d, c, s) for dt in (torch.float16, torch.bfloat16) for d in (64, 128)
                        for c in (False, True) for s in (1024, 2048, 4096, 8192, 16384)]
            else:
                rows = [(torch.bfloat16, 128, False, 16384), (torch.bfloat16, 128, True, 4096),
                        (torch.float16, 64, False, 2048), (torch.bfloat16, 64, True, 8192),
                        (torch.float16, 128, False, 1024), (torch.bfloat16, 128, True, 16384)]
            timing(args._child, rows)
        sys.exit(0 if ok else 1)
    rc = 0
    for sched in args.schedules.split(","):
        env = dict(os.environ, FLASHCORE_HOPPER_SCHEDULE=sched)
        cmd = [sys.executable, __file__, "--_child", sched] + (["--time"] if args.time else []) + \
              (["--full_grid"] if args.full_grid else [])
        r = subprocess.run(cmd, env=env, timeout=900)
        print(f"[{sched}] exit {r.returncode}", flush=True)
        rc |= r.returncode != 0
    sys.exit(rc)


if __name__ == "__main__":
    main()
