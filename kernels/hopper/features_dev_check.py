"""Development check of the run-time features (GQA, window, softcap, sinks, varlen) on the GPU at
hand: forward and gradients of flashcore's attention_core against a float64 autograd reference,
and the error of the same math in the inputs' dtype (FlashAttention's rule: ours <= 2x that,
floored at the dtype's unit roundoff). Also a few kernel-only timings of each feature against
the plain kernel. The suites' tests (tests/gpu_features_test.py) are the contract; this is the
quick loop while the kernels change.

    python3 kernels/hopper/features_dev_check.py [--time] [--time_softcap]

--time_softcap: the forward's softcap cost alone (issue 13's bar: <= 10%), softcap 30 against
none, bf16, head dims 64 and 128, S 4k causal (B4), S 16k causal and S 16k full (B1), 16k tokens
of hidden 2048 (heads = 2048 / head dim). Kernel-only (CUDA-graph replay); the two rows of a shape
are timed alternately, --rounds times each, in one process, and their medians compared.
"""

import argparse
import math
import sys

import torch

from flashcore import _attention

UNIT = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}


def reference(q, k, v, scale, causal, window, softcap, sink, compute_dtype=torch.float64):
    """Dense (B, S, H, D) attention in compute_dtype by plain torch ops (autograd-able)."""
    qf, kf, vf = (t.to(compute_dtype) for t in (q, k, v))
    hq, hk = q.shape[2], k.shape[2]
    kf = kf.repeat_interleave(hq // hk, dim=2)
    vf = vf.repeat_interleave(hq // hk, dim=2)
    s = torch.einsum("bihd,bjhd->bhij", qf, kf) * scale
    if softcap > 0:
        s = softcap * torch.tanh(s / softcap)
    sq, sk = q.shape[1], k.shape[1]
    i = torch.arange(sq, device=q.device)[:, None]
    j = torch.arange(sk, device=q.device)[None, :]
    diag = i + sk - sq
    left, right = window
    if causal:
        right = 0
    vis = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if left >= 0:
        vis &= j >= diag - left
    if right >= 0:
        vis &= j <= diag + right
    s = s.masked_fill(~vis, float("-inf"))
    if sink is not None:
        sk_col = sink.to(compute_dtype)[None, :, None, None].expand(s.shape[0], -1, sq, 1)
        s = torch.cat([s, sk_col], dim=-1)
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None].clamp_min(-1e30))
    p = torch.nan_to_num(p, nan=0.0)
    if sink is not None:
        p = p[..., :-1]
    out = torch.einsum("bhij,bjhd->bihd", p, vf)
    return out, lse


def ref_varlen(q, k, v, cu_q, cu_k, scale, causal, window, softcap, sink, compute_dtype=torch.float64):
    outs, lses = [], []
    for b in range(len(cu_q) - 1):
        qs, ks = slice(cu_q[b], cu_q[b + 1]), slice(cu_k[b], cu_k[b + 1])
        o, l = reference(q[None, qs], k[None, ks], v[None, ks], scale, causal, window, softcap, sink, compute_dtype)
        outs.append(o[0])
        lses.append(l[0])
    return torch.cat(outs, 0), torch.cat(lses, 1)


def rel(x, ref):
    return ((x.double() - ref.double()).norm() / ref.double().norm().clamp_min(1e-30)).item()


def check_case(name, dtype, b, sq, sk, hq, hk, d, causal=False, window=(-1, -1), softcap=0.0, sink=False, varlen=None,
          deterministic=False, grads=True, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    scale = d ** -0.5
    if varlen:
        lens_q, lens_k = varlen
        cu_q = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), dtype=torch.int32, device=dev)
        cu_k = torch.tensor([0] + list(torch.tensor(lens_k).cumsum(0)), dtype=torch.int32, device=dev)
        pad = 37  # rows past cu_seqlens[-1] hold NaN: they must never be read
        tq, tk = int(cu_q[-1]), int(cu_k[-1])
        q = torch.randn(tq + pad, hq, d, generator=g, device=dev).to(dtype)
        k = torch.randn(tk + pad, hk, d, generator=g, device=dev).to(dtype)
        v = torch.randn(tk + pad, hk, d, generator=g, device=dev).to(dtype)
        for t, n in ((q, tq), (k, tk), (v, tk)):
            t[n:] = float("nan")
        extra = dict(cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=max(lens_q), max_seqlen_k=max(lens_k))
    else:
        q = torch.randn(b, sq, hq, d, generator=g, device=dev).to(dtype)
        k = torch.randn(b, sk, hk, d, generator=g, device=dev).to(dtype)
        v = torch.randn(b, sk, hk, d, generator=g, device=dev).to(dtype)
        extra = {}
    s_t = (torch.randn(hq, generator=g, device=dev) * 2).float() if sink else None
    leaves = [t.detach().clone().requires_grad_(grads) for t in (q, k, v)]
    s_leaf = s_t.clone().requires_grad_(grads) if sink else None
    out, lse = _attention.attention_core(*leaves, softmax_scale=scale, causal=causal, window_size=window,
                                         softcap=softcap, sink=s_leaf, deterministic=deterministic, **extra)
    # References: float64 and the same math in the inputs' dtype (upcast inputs, nothing else).
    def run_ref(cd):
        r_leaves = [t.detach().clone().to(cd).requires_grad_(grads) for t in (q, k, v)]
        r_sink = s_t.detach().clone().to(cd).requires_grad_(grads) if sink else None
        if varlen:
            n_q = int(cu_q[-1])
            n_k = int(cu_k[-1])
            o, l = ref_varlen(r_leaves[0][:n_q], r_leaves[1][:n_k], r_leaves[2][:n_k], cu_q.tolist(), cu_k.tolist(),
                              scale, causal, window, softcap, r_sink, cd)
        else:
            o, l = reference(*r_leaves, scale, causal, window, softcap, r_sink, cd)
        return o, l, r_leaves, r_sink
    ref_o, ref_l, ref_leaves, ref_sink = run_ref(torch.float64)
    low_o, _, low_leaves, low_sink = run_ref(dtype)
    n_q = int(cu_q[-1]) if varlen else None
    o_cmp = out[:n_q] if varlen else out
    errs = {}
    assert torch.isfinite(o_cmp).all(), "%s: non-finite output" % name
    errs["out"] = (rel(o_cmp, ref_o), rel(low_o, ref_o))
    lse_cmp = lse[:, :n_q] if varlen else lse
    seen = ref_l.isfinite()
    errs["lse_abs"] = ((lse_cmp[seen].double() - ref_l[seen]).abs().max().item(), 0.0)
    if grads:
        dout = torch.randn(o_cmp.shape, generator=g, device=dev).to(dtype)
        full_dout = torch.zeros_like(out)
        if varlen:
            full_dout[:n_q] = dout
        else:
            full_dout = dout
        out.backward(full_dout)
        ref_o.backward(dout.double())
        low_o.backward(dout.to(low_o.dtype))
        names = ["dq", "dk", "dv"]
        for i, nm in enumerate(names):
            rows = (n_q if i == 0 else int(cu_k[-1])) if varlen else None
            ours = leaves[i].grad[:rows]
            assert torch.isfinite(leaves[i].grad).all(), "%s: non-finite %s (padding rows included)" % (name, nm)
            ref_g, low_g = ref_leaves[i].grad[:rows], low_leaves[i].grad[:rows]
            errs[nm] = (rel(ours, ref_g), rel(low_g, ref_g))
        if sink:
            errs["dsink"] = (rel(s_leaf.grad, ref_sink.grad), rel(low_sink.grad, ref_sink.grad))
    ok = True
    parts = []
    for key, (ours, theirs) in errs.items():
        bound = 1e-3 * max(1.0, ref_l[seen].abs().max().item()) if key == "lse_abs" else 2 * max(theirs, UNIT[dtype])
        good = ours <= bound
        ok &= good
        parts.append("%s %.2e/%.2e%s" % (key, ours, theirs, "" if good else " FAIL"))
    print("%-4s %-44s %s" % ("ok" if ok else "FAIL", name, "  ".join(parts)))
    return ok


def run_checks():
    results = []
    def check(name, *args, **kwargs):  # one failure must not hide the rest
        try:
            return check_case(name, *args, **kwargs)
        except Exception as e:  # noqa: BLE001 - reported, counted as a failure
            print("FAIL %-44s %s: %s" % (name, type(e).__name__, str(e)[:300]))
            return False

    for dtype in (torch.bfloat16, torch.float16):
        for d in (64, 128):
            t = "%s d%d " % (str(dtype)[6:], d)
            results.append(check(t + "mha", dtype, 2, 300, 300, 4, 4, d))
            results.append(check(t + "gqa 8/2 causal", dtype, 2, 300, 333, 8, 2, d, causal=True))
            results.append(check(t + "mqa 4/1", dtype, 1, 200, 257, 4, 1, d))
            results.append(check(t + "window (64,0)", dtype, 2, 400, 400, 4, 2, d, window=(64, 0)))
            results.append(check(t + "window (100,30) sq<sk", dtype, 1, 200, 517, 2, 2, d, window=(100, 30)))
            results.append(check(t + "window left only (50,-1)", dtype, 1, 300, 300, 2, 2, d, window=(50, -1)))
            results.append(check(t + "softcap 30 causal", dtype, 2, 300, 300, 4, 4, d, causal=True, softcap=30.0))
            results.append(check(t + "softcap 5 full", dtype, 1, 129, 300, 2, 1, d, softcap=5.0))
            results.append(check(t + "sink", dtype, 2, 200, 200, 4, 2, d, sink=True))
            results.append(check(t + "sink causal sq>sk", dtype, 1, 300, 100, 2, 2, d, sink=True, causal=True))
            results.append(check(t + "varlen", dtype, 0, 0, 0, 4, 4, d, varlen=([100, 1, 300, 17], [100, 1, 300, 17])))
            results.append(check(t + "varlen gqa causal sq!=sk", dtype, 0, 0, 0, 8, 2, d, causal=True,
                                 varlen=([100, 5, 250, 64], [120, 5, 300, 64])))
            results.append(check(t + "varlen window softcap sink", dtype, 0, 0, 0, 4, 2, d, window=(40, 0), softcap=20.0,
                                 sink=True, varlen=([70, 300, 129], [70, 300, 129])))
            results.append(check(t + "all + deterministic", dtype, 0, 0, 0, 4, 2, d, window=(40, 0), softcap=20.0,
                                 sink=True, deterministic=True, varlen=([70, 300, 129], [90, 300, 200])))
    # Deterministic: bitwise over 3 runs, with GQA + window + varlen.
    outs = []
    for _ in range(3):
        g = torch.Generator(device="cuda").manual_seed(5)
        q = torch.randn(600, 8, 128, generator=g, device="cuda").bfloat16().requires_grad_()
        k = torch.randn(700, 2, 128, generator=g, device="cuda").bfloat16().requires_grad_()
        v = torch.randn(700, 2, 128, generator=g, device="cuda").bfloat16().requires_grad_()
        cu_q = torch.tensor([0, 200, 600], dtype=torch.int32, device="cuda")
        cu_k = torch.tensor([0, 300, 700], dtype=torch.int32, device="cuda")
        o, _ = _attention.attention_core(q, k, v, softmax_scale=0.1, causal=True, window_size=(100, 0),
                                         cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=400, max_seqlen_k=400,
                                         deterministic=True)
        o.sum().backward()
        outs.append((q.grad.clone(), k.grad.clone(), v.grad.clone()))
    same = all(torch.equal(a, b) for r in outs[1:] for a, b in zip(outs[0], r))
    print("%-4s deterministic bitwise x3 (gqa, window, varlen)" % ("ok" if same else "FAIL"))
    results.append(same)
    return all(results)


def time_features():
    import triton.testing as tt
    rows = []

    def bench(fn, graph=True):
        # The backward runs on autograd's device thread, which a capture on this thread does not
        # cover: it is timed eagerly (its kernels take milliseconds; launch gaps are noise).
        return tt.do_bench_cudagraph(fn, rep=60) if graph else tt.do_bench(fn, warmup=25, rep=100)

    def flops(b, hq, sq, sk, d, causal, window=None):
        if window is not None:  # keys actually seen, summed over rows
            i = torch.arange(sq, dtype=torch.float64)
            lo = (i + sk - sq - window[0]).clamp(min=0)
            hi = (i + sk - sq + (window[1] if window[1] >= 0 else sk)).clamp(max=sk - 1)
            n = (hi - lo + 1).clamp(min=0).sum().item()
            return 4 * b * hq * n * d
        return 4 * b * hq * sq * sk * d / (2 if causal else 1)

    def case(label, b, s, hq, hk, d, causal, window=(-1, -1), softcap=0.0, bwd=False, varlen=None):
        dev = "cuda"
        if varlen is not None:
            lens = varlen
            tot = sum(lens)
            q = torch.randn(tot, hq, d, device=dev, dtype=torch.bfloat16)
            k = torch.randn(tot, hk, d, device=dev, dtype=torch.bfloat16)
            v = torch.randn(tot, hk, d, device=dev, dtype=torch.bfloat16)
            cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32, device=dev)
            extra = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lens), max_seqlen_k=max(lens))
            fl = sum(flops(1, hq, L, L, d, causal) for L in lens)
        else:
            q = torch.randn(b, s, hq, d, device=dev, dtype=torch.bfloat16)
            k = torch.randn(b, s, hk, d, device=dev, dtype=torch.bfloat16)
            v = torch.randn(b, s, hk, d, device=dev, dtype=torch.bfloat16)
            extra = {}
            fl = flops(b, hq, s, s, d, causal, window if window != (-1, -1) else None)
        if bwd:
            q.requires_grad_(); k.requires_grad_(); v.requires_grad_()
            o, _ = _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal, window_size=window,
                                             softcap=softcap, **extra)
            do = torch.randn_like(o)
            fn = lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
            fl *= 2.5
        else:
            fn = lambda: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal, window_size=window,
                                                   softcap=softcap, **extra)
        ms = bench(fn, graph=not bwd)
        rows.append((label, ms, fl / ms / 1e9))
        print("%-48s %8.3f ms %7.1f TFLOP/s" % (label, ms, fl / ms / 1e9))

    for bwd in (False, True):
        tag = "bwd " if bwd else "fwd "
        case(tag + "MHA  h32 d128 S4k causal", 4, 4096, 32, 32, 128, True, bwd=bwd)
        case(tag + "GQA 32/8 d128 S4k causal", 4, 4096, 32, 8, 128, True, bwd=bwd)
        case(tag + "MHA  h32 d128 S16k causal", 1, 16384, 32, 32, 128, True, bwd=bwd)
        case(tag + "GQA 32/8 d128 S16k causal", 1, 16384, 32, 8, 128, True, bwd=bwd)
        case(tag + "window 4096 S16k causal h32", 1, 16384, 32, 32, 128, True, window=(4096, 0), bwd=bwd)
        case(tag + "softcap 30 S4k causal h16", 4, 4096, 16, 16, 128, True, softcap=30.0, bwd=bwd)
        case(tag + "softcap 0  S4k causal h16", 4, 4096, 16, 16, 128, True, bwd=bwd)
        case(tag + "dense B8 S2k h16 d128 causal", 8, 2048, 16, 16, 128, True, bwd=bwd)
        case(tag + "varlen 8x2k equal causal", 0, 0, 16, 16, 128, True, varlen=[2048] * 8, bwd=bwd)
        torch.manual_seed(0)
        mix = [int(x) for x in torch.randint(100, 4001, (64,))]
        case(tag + "varlen 64 mixed 100-4000 causal", 0, 0, 16, 16, 128, True, varlen=mix, bwd=bwd)
        case(tag + "varlen 64 x 2050 equal causal", 0, 0, 16, 16, 128, True, varlen=[sum(mix) // 64] * 64, bwd=bwd)
    return rows


def time_softcap(rounds):
    """Forward softcap 30 vs none, interleaved A/B per shape; returns the rows printed."""
    import statistics

    import triton.testing as tt
    rows = []
    for d in (64, 128):
        heads = 2048 // d
        for label, b, s, causal in (("S4k causal", 4, 4096, True), ("S16k causal", 1, 16384, True),
                                    ("S16k full", 1, 16384, False)):
            q, k, v = (torch.randn(b, s, heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            fns = {cap: (lambda cap=cap: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal,
                                                                 softcap=cap))
                   for cap in (0.0, 30.0)}
            times = {cap: [] for cap in fns}
            for _ in range(rounds):
                for cap, fn in fns.items():
                    times[cap].append(tt.do_bench_cudagraph(fn, rep=60))
            ms = {cap: statistics.median(t) for cap, t in times.items()}
            fl = 4 * b * heads * s * s * d / (2 if causal else 1)
            speed = ms[0.0] / ms[30.0]  # softcap's throughput against none's
            spread = max(max(t) / min(t) - 1 for t in times.values())
            row = "fwd bf16 d%-3d h%-2d B%d %-11s none %7.3f ms %6.1f TFLOP/s  softcap30 %7.3f ms %6.1f TFLOP/s  " \
                  "speed %5.1f%% (cost %+5.1f%%, bar <= 10%%)  max spread %.1f%%" % (
                      d, heads, b, label, ms[0.0], fl / ms[0.0] / 1e9, ms[30.0], fl / ms[30.0] / 1e9, 100 * speed,
                      100 * (1 - speed), 100 * spread)
            print(row)
            rows.append(row)
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--time", action="store_true", help="every feature's timing rows (forward and backward)")
    ap.add_argument("--time_softcap", action="store_true", help="the forward's softcap cost, A/B (see the docstring)")
    ap.add_argument("--rounds", type=int, default=5, help="--time_softcap: timings of each row, alternating")
    args = ap.parse_args()
    print(torch.cuda.get_device_name(), "arch", _attention._arch_for(0))
    ok = run_checks()
    if args.time:
        time_features()
    if args.time_softcap:
        time_softcap(args.rounds)
    sys.exit(0 if ok else 1)
