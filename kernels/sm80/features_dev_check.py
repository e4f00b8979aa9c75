"""Development check of issue 13's run-time features in the mma.sync (sm80/sm89) kernels on the
GPU at hand: GQA/MQA, sliding window, softcap, sinks, packed varlen (with seqused_k), alone and
combined, forward and gradients, against a float64 reference written here with plain torch ops,
and the error of the same math in the inputs' dtype (ours <= 2x that, floored at the dtype's unit
roundoff). Outputs are poisoned with NaN before each launch (a row left unwritten fails), packed
rows past cu_seqlens[-1] hold NaN in every input (a read of one fails). Deterministic mode:
bitwise over 3 runs for each feature. --time: kernel timings of the plain path (the cost of the
features when off, against a build without them) and of each feature.

Paths (a Hopper has no sm80 SASS): FLASHCORE_FORCE_ARCH=sm80_ptx runs the sm80 forward (and,
where the build has the PTX backward library, the sm80 backward: 1 Q/dO stage, scalar dQ
atomics); --bwd fallback runs the backward through the sm90a library with
FLASHCORE_BWD_SM90_MMA_SYNC=1 (test-only, read once per process: kernels/sm80/bwd_launch.cuh),
which sends it to the sm90a mma.sync fallback (2 stages, float2 atomics), the kernel the TMA
backward uses for layouts it cannot describe.

    python3 kernels/sm80/features_dev_check.py [--bwd ptx|fallback] [--time | --time_only | --time_features]
        [--json F]
"""

import argparse
import json
import math
import os
import re
import sys

import torch

from flashcore import _attention

UNIT = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
NAN = float("nan")


# ---- float64 reference -------------------------------------------------------------------------

def ref_dense(q, k, v, scale, window, softcap, sink):
    """One sequence: q (Sq, Hq, D), k/v (Sk, Hk, D) in the compute dtype; window (left, right)
    with -1 unbounded (causal = right 0). Returns out (Sq, Hq, D), lse (Hq, Sq)."""
    hq, hk = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hk, dim=1)
    v = v.repeat_interleave(hq // hk, dim=1)
    s = torch.einsum("ihd,jhd->hij", q, k) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    sq, sk = q.shape[0], k.shape[0]
    i = torch.arange(sq, device=q.device)[:, None]
    j = torch.arange(sk, device=q.device)[None, :]
    diag = i + sk - sq
    seen = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if window[0] >= 0:
        seen &= j >= diag - window[0]
    if window[1] >= 0:
        seen &= j <= diag + window[1]
    s = s.masked_fill(~seen, -math.inf)
    if sink is not None:
        s = torch.cat([s, sink.to(s.dtype)[:, None, None].expand(hq, sq, 1)], dim=-1)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)[..., None])
    if sink is not None:
        p = p[..., :-1]
    return torch.einsum("hij,jhd->ihd", p, v), lse


def reference(q, k, v, scale, window, softcap, sink, cu_q, cu_k, used_k, dtype):
    """Dense (B, S, H, D) or packed (cu_q/cu_k lists) attention in `dtype`."""
    if cu_q is None:
        outs, lses = zip(*(ref_dense(q[b].to(dtype), k[b].to(dtype), v[b].to(dtype), scale, window, softcap, sink)
                           for b in range(q.shape[0])))
        return torch.stack(outs), torch.stack(lses)
    outs, lses = [], []
    for b in range(len(cu_q) - 1):
        nk = cu_k[b + 1] - cu_k[b] if used_k is None else min(cu_k[b + 1] - cu_k[b], used_k[b])
        o, l = ref_dense(q[cu_q[b]:cu_q[b + 1]].to(dtype), k[cu_k[b]:cu_k[b] + nk].to(dtype),
                         v[cu_k[b]:cu_k[b] + nk].to(dtype), scale, window, softcap, sink)
        outs.append(o)
        lses.append(l)
    return torch.cat(outs), torch.cat(lses, dim=1)


def rel(x, ref):
    return ((x.double() - ref.double()).norm() / ref.double().norm().clamp_min(1e-30)).item()


# ---- one case ----------------------------------------------------------------------------------

class Case:
    def __init__(self, name, dtype, d, hq, hk, *, b=1, sq=0, sk=0, causal=False, window=(-1, -1), softcap=0.0,
                 sink=False, lens_q=None, lens_k=None, used_k=None, seed=0):
        self.name, self.dtype, self.d, self.hq, self.hk = name, dtype, d, hq, hk
        self.causal, self.softcap = causal, softcap
        self.window = (window[0], 0 if causal else window[1])
        self.scale = d ** -0.5
        g = torch.Generator(device="cuda").manual_seed(seed)
        dev = "cuda"
        if lens_q is not None:
            pad = 24  # packed rows past cu_seqlens[-1] hold NaN: they must never be read
            self.cu_q = [0] + [int(x) for x in torch.tensor(lens_q).cumsum(0)]
            self.cu_k = [0] + [int(x) for x in torch.tensor(lens_k).cumsum(0)]
            self.used_k = used_k
            tq, tk = self.cu_q[-1], self.cu_k[-1]
            shape_q, shape_k = (tq + pad, hq, d), (tk + pad, hk, d)
            self.features = dict(cu_seqlens_q=torch.tensor(self.cu_q, dtype=torch.int32, device=dev),
                                 cu_seqlens_k=torch.tensor(self.cu_k, dtype=torch.int32, device=dev),
                                 seqused_k=None if used_k is None else torch.tensor(used_k, dtype=torch.int32, device=dev),
                                 max_seqlen_q=max(lens_q), max_seqlen_k=max(lens_k))
            self.n_q, self.n_k = tq, tk
        else:
            self.cu_q = self.cu_k = self.used_k = None
            shape_q, shape_k = (b, sq, hq, d), (b, sk, hk, d)
            self.features = {}
            self.n_q = self.n_k = None
        self.q = torch.randn(shape_q, generator=g, device=dev).to(dtype)
        self.k = torch.randn(shape_k, generator=g, device=dev).to(dtype)
        self.v = torch.randn(shape_k, generator=g, device=dev).to(dtype)
        self.dout = torch.randn(shape_q, generator=g, device=dev).to(dtype)
        if lens_q is not None:
            for t, n in ((self.q, self.n_q), (self.k, self.n_k), (self.v, self.n_k), (self.dout, self.n_q)):
                t[n:] = NAN
        self.sink = (torch.randn(hq, generator=g, device=dev) * 2).float() if sink else None
        self.features.update(window_left=self.window[0], window_right=self.window[1], softcap=softcap, sink=self.sink)

    def valid_q(self, t):
        return t if self.n_q is None else t[:self.n_q]

    def valid_k(self, t):
        """Key rows that exist for the kernels (seqused_k: only the used ones of each sequence)."""
        if self.n_k is None:
            return t
        if self.used_k is None:
            return t[:self.n_k]
        return torch.cat([t[self.cu_k[b]:self.cu_k[b] + min(self.cu_k[b + 1] - self.cu_k[b], self.used_k[b])]
                          for b in range(len(self.cu_k) - 1)])

    def forward(self):
        out = torch.full_like(self.q, NAN)
        lse_shape = (self.hq, self.q.shape[0]) if self.n_q is not None else (self.q.shape[0], self.hq, self.q.shape[1])
        lse = torch.full(lse_shape, NAN, dtype=torch.float32, device="cuda")
        _attention._launch(self.q, self.k, self.v, out, lse, self.causal, self.scale, **self.features)
        return out, lse

    def backward(self, out, lse, deterministic, bwd_mode):
        dq, dk, dv = (torch.full_like(t, NAN) for t in (self.q, self.k, self.v))
        saved = _attention._forced_arch
        if bwd_mode == "fallback":
            _attention._set_forced_arch(None)  # the sm90a library, switched to its mma.sync kernel
        try:
            dsum = _attention.attention_bwd_into(self.dout, self.q, self.k, self.v, out, lse, dq, dk, dv, self.causal,
                                                 self.scale, deterministic, **self.features)
        finally:
            _attention._set_forced_arch(saved)
        dsink = _attention._sink_grad(self.sink, lse, dsum, self.features.get("cu_seqlens_q")) \
            if self.sink is not None else None
        return dq, dk, dv, dsink

    def refs(self, dtype):
        leaves = [t.detach().clone() for t in (self.q, self.k, self.v)]
        if self.n_q is not None:
            leaves = [leaves[0][:self.n_q], leaves[1][:self.n_k], leaves[2][:self.n_k]]
        leaves = [t.to(dtype).requires_grad_() for t in leaves]
        sink = self.sink.to(dtype).requires_grad_() if self.sink is not None else None
        o, l = reference(*leaves, self.scale, self.window, self.softcap, sink, self.cu_q, self.cu_k, self.used_k, dtype)
        dout = self.valid_q(self.dout).to(dtype)
        grads = torch.autograd.grad(o, leaves + ([sink] if sink is not None else []), dout)
        dk, dv = grads[1], grads[2]
        return o.detach(), l.detach(), grads[0], self.valid_k(dk), self.valid_k(dv), \
            (grads[3] if sink is not None else None)


def check(case, bwd_mode, results):
    out, lse = case.forward()
    dq, dk, dv, dsink = case.backward(out, lse, False, bwd_mode)
    r64 = case.refs(torch.float64)
    rlo = case.refs(case.dtype)
    ours = {"out": case.valid_q(out), "dq": case.valid_q(dq), "dk": case.valid_k(dk), "dv": case.valid_k(dv)}
    if dsink is not None:
        ours["dsink"] = dsink
    names = ["out", "lse", "dq", "dk", "dv", "dsink"]
    ok = True
    parts = []
    for i, nm in enumerate(names):
        if nm == "lse":
            ours_l = lse[:, :case.n_q] if case.n_q is not None else lse
            ref_l = r64[1]
            fin = torch.isfinite(ref_l)
            good = bool(torch.equal(torch.isfinite(ours_l), fin)) and bool((ours_l[~fin] == -math.inf).all())
            err = (ours_l[fin].double() - ref_l[fin]).abs().max().item() if fin.any() else 0.0
            good &= err <= 1e-3 * max(1.0, ref_l[fin].abs().max().item() if fin.any() else 1.0)
            parts.append("lse %.1e%s" % (err, "" if good else " FAIL"))
            ok &= good
            continue
        if nm == "dsink" and dsink is None:
            continue
        x = ours[nm]
        finite = bool(torch.isfinite(x).all())
        e_ours = rel(x, r64[i]) if finite else math.inf
        e_low = rel(rlo[i], r64[i])
        good = finite and e_ours <= 2 * max(e_low, UNIT[case.dtype])
        ok &= good
        parts.append("%s %.1e/%.1e%s" % (nm, e_ours, e_low, "" if good else (" FAIL" if finite else " NONFINITE")))
    print("%-4s %-46s %s" % ("ok" if ok else "FAIL", case.name, " ".join(parts)), flush=True)
    results.append({"case": case.name, "ok": ok, "detail": " ".join(parts)})
    return ok


def check_deterministic(case, bwd_mode, results):
    out, lse = case.forward()
    runs = [case.backward(out, lse, True, bwd_mode)[:3] for _ in range(3)]
    same = all(torch.equal(torch.nan_to_num(a, 7.0), torch.nan_to_num(b, 7.0)) for r in runs[1:] for a, b in zip(runs[0], r))
    # ... and equal to the atomics' result up to rounding (the semaphores' order is a valid one).
    fast = case.backward(out, lse, False, bwd_mode)[:3]
    close = all(rel(case.valid_q(a) if i == 0 else case.valid_k(a), case.valid_q(b) if i == 0 else case.valid_k(b)) < 1e-2
                for i, (a, b) in enumerate(zip(runs[0], fast)))
    ok = same and close
    print("%-4s deterministic x3 %-32s bitwise=%s close_to_atomic=%s" % ("ok" if ok else "FAIL", case.name, same, close),
          flush=True)
    results.append({"case": "det " + case.name, "ok": ok})
    return ok


def guarded(fn, case, bwd_mode, results):
    try:
        return fn(case, bwd_mode, results)
    except Exception as e:  # a failed launch is a failed case (a sticky CUDA error fails the rest)
        print("FAIL %-46s %s: %s" % (case.name, type(e).__name__, str(e)[:200]), flush=True)
        results.append({"case": case.name, "ok": False, "detail": repr(e)[:300]})
        return False


def cases(dtype, d):
    t = "%s d%d " % (str(dtype)[6:], d)
    return [
        Case(t + "mha", dtype, d, 4, 4, b=2, sq=300, sk=300),
        Case(t + "mha causal sq<sk", dtype, d, 2, 2, b=2, sq=200, sk=333, causal=True),
        Case(t + "gqa 8/2 causal", dtype, d, 8, 2, b=2, sq=300, sk=333, causal=True),
        Case(t + "mqa 4/1", dtype, d, 4, 1, b=1, sq=200, sk=257),
        Case(t + "window (64,0)", dtype, d, 4, 2, b=2, sq=400, sk=400, window=(64, 0)),
        Case(t + "window (100,30) sq<sk", dtype, d, 2, 2, b=1, sq=200, sk=517, window=(100, 30)),
        Case(t + "window (50,-1)", dtype, d, 2, 2, b=1, sq=300, sk=300, window=(50, -1)),
        Case(t + "window (-1,20) sq>sk", dtype, d, 2, 2, b=1, sq=300, sk=170, window=(-1, 20)),
        Case(t + "softcap 30 causal", dtype, d, 4, 4, b=2, sq=300, sk=300, causal=True, softcap=30.0),
        Case(t + "softcap 5 full", dtype, d, 2, 1, b=1, sq=129, sk=300, softcap=5.0),
        Case(t + "sink", dtype, d, 4, 2, b=2, sq=200, sk=200, sink=True),
        Case(t + "sink causal sq>sk", dtype, d, 2, 2, b=1, sq=300, sk=100, causal=True, sink=True),
        Case(t + "varlen", dtype, d, 4, 4, lens_q=[100, 1, 300, 17], lens_k=[100, 1, 300, 17]),
        Case(t + "varlen gqa causal sq!=sk", dtype, d, 8, 2, causal=True, lens_q=[100, 5, 250, 64],
             lens_k=[120, 5, 300, 64]),
        Case(t + "varlen seqused_k", dtype, d, 4, 2, lens_q=[90, 200], lens_k=[150, 260], used_k=[100, 3]),
        Case(t + "varlen window softcap sink", dtype, d, 4, 2, window=(40, 0), softcap=20.0, sink=True,
             lens_q=[70, 300, 129], lens_k=[70, 300, 129]),
        Case(t + "all: varlen gqa window(33,7) softcap sink", dtype, d, 6, 2, window=(33, 7), softcap=10.0, sink=True,
             lens_q=[70, 300, 129, 0], lens_k=[90, 300, 200, 5]),
    ]


def deterministic_cases(d):
    dt = torch.bfloat16
    return [
        Case("gqa 8/2 causal", dt, d, 8, 2, b=2, sq=500, sk=500, causal=True, seed=3),
        Case("window (100,0)", dt, d, 4, 2, b=1, sq=700, sk=700, window=(100, 0), seed=4),
        Case("window (64,64) full-ish", dt, d, 2, 2, b=1, sq=400, sk=600, window=(64, 64), seed=5),
        Case("softcap", dt, d, 4, 4, b=1, sq=400, sk=400, softcap=20.0, seed=6),
        Case("sink", dt, d, 4, 4, b=1, sq=400, sk=400, sink=True, seed=7),
        Case("varlen gqa window", dt, d, 8, 2, window=(100, 0), lens_q=[200, 400], lens_k=[300, 400], seed=8),
    ]


# ---- timings -----------------------------------------------------------------------------------

def bench_ms(fn, reps=30):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / reps)
    return sorted(times)[len(times) // 2]


def time_rows(bwd_mode, plain, features, rows):
    """Plain rows (both builds) and feature rows (this build). Kernel launches only: _launch and
    attention_bwd_into with preallocated outputs."""

    def run(label, case, flops):
        out, lse = case.forward()
        f_ms = bench_ms(lambda: _attention._launch(case.q, case.k, case.v, out, lse, case.causal, case.scale,
                                                   **case.features))
        dq, dk, dv = (torch.empty_like(t) for t in (case.q, case.k, case.v))
        saved = _attention._forced_arch
        if bwd_mode == "fallback":
            _attention._set_forced_arch(None)
        b_ms = bench_ms(lambda: _attention.attention_bwd_into(case.dout, case.q, case.k, case.v, out, lse, dq, dk, dv,
                                                              case.causal, case.scale, False, **case.features))
        _attention._set_forced_arch(saved)
        rows.append({"row": label, "fwd_ms": f_ms, "bwd_ms": b_ms, "fwd_tflops": flops / f_ms / 1e9,
                     "bwd_tflops": 2.5 * flops / b_ms / 1e9})
        print("%-44s fwd %7.3f ms %6.1f TF/s   bwd %7.3f ms %6.1f TF/s" % (
            label, f_ms, flops / f_ms / 1e9, b_ms, 2.5 * flops / b_ms / 1e9), flush=True)

    def fl(b, h, sq, sk, d, causal):
        return 4.0 * b * h * sq * sk * d / (2 if causal else 1)

    bf = torch.bfloat16
    for d in ((64, 128) if plain else ()):
        for causal in (False, True):
            run("plain d%d B4 S2048 H16 %s" % (d, "causal" if causal else "full"),
                Case("t", bf, d, 16, 16, b=4, sq=2048, sk=2048, causal=causal, seed=1), fl(4, 16, 2048, 2048, d, causal))
    if not features:
        return
    d = 128
    run("gqa 16/4 d128 B4 S2048 causal", Case("t", bf, d, 16, 4, b=4, sq=2048, sk=2048, causal=True, seed=1),
        fl(4, 16, 2048, 2048, d, True))
    run("softcap 30 d128 B4 S2048 causal", Case("t", bf, d, 16, 16, b=4, sq=2048, sk=2048, causal=True,
                                                  softcap=30.0, seed=1), fl(4, 16, 2048, 2048, d, True))
    run("sink d128 B4 S2048 causal", Case("t", bf, d, 16, 16, b=4, sq=2048, sk=2048, causal=True, sink=True,
                                            seed=1), fl(4, 16, 2048, 2048, d, True))
    # Window 1024 of 8192 causal: FLOPs of the keys actually seen.
    w = 1024
    seen = sum(min(i, w) + 1 for i in range(8192))
    run("window (1024,0) d128 B1 S8192 H16", Case("t", bf, d, 16, 16, b=1, sq=8192, sk=8192, window=(w, 0), seed=1),
        4.0 * 16 * seen * d)
    run("plain causal d128 B1 S8192 H16", Case("t", bf, d, 16, 16, b=1, sq=8192, sk=8192, causal=True, seed=1),
        fl(1, 16, 8192, 8192, d, True))
    run("varlen 4x2048 equal causal d128 H16", Case("t", bf, d, 16, 16, causal=True, lens_q=[2048] * 4,
                                                    lens_k=[2048] * 4, seed=1), fl(4, 16, 2048, 2048, d, True))
    g = torch.Generator().manual_seed(0)
    mix = [int(x) for x in torch.randint(100, 4001, (16,), generator=g)]
    run("varlen 16 mixed 100-4000 causal d128 H16", Case("t", bf, d, 16, 16, causal=True, lens_q=mix, lens_k=mix,
                                                         seed=1), sum(fl(1, 16, n, n, d, True) for n in mix))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bwd", choices=("ptx", "fallback"), default="ptx",
                    help="ptx: the sm80_ptx backward library; fallback: the sm90a library's mma.sync kernel")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--time_only", action="store_true", help="plain timings only (a build without the features)")
    ap.add_argument("--time_features", action="store_true", help="feature timings only")
    ap.add_argument("--only", default=None, help="regex: only the cases whose name matches")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    _attention._set_forced_arch("sm80_ptx")
    if args.bwd == "fallback":
        os.environ["FLASHCORE_BWD_SM90_MMA_SYNC"] = "1"
    print(torch.cuda.get_device_name(), "fwd arch", _attention._arch_for(0), "bwd", args.bwd, flush=True)
    results, rows = [], []
    ok = True
    if not (args.time_only or args.time_features):
        for dtype in (torch.bfloat16, torch.float16):
            for d in (64, 128):
                for c in cases(dtype, d):
                    if args.only is None or re.search(args.only, c.name):
                        ok &= guarded(check, c, args.bwd, results)
        for d in (64, 128):
            for c in deterministic_cases(d):
                c.name = "d%d %s" % (d, c.name)
                if args.only is None or re.search(args.only, c.name):
                    ok &= guarded(check_deterministic, c, args.bwd, results)
    if args.time or args.time_only or args.time_features:
        time_rows(args.bwd, not args.time_features, not args.time_only, rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "bwd": args.bwd, "ok": ok, "results": results,
                       "timings": rows}, f, indent=1)
    print("ALL OK" if ok else "SOME FAILED", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
