"""Session 41: where a step of the sm90a split-keys backward goes, from clock64 stamps (the
diagnostic build of `bwd_trace.diff`: FLASHCORE_BWD_TRACE_FILE makes the sm90a backward's launcher
zero a per-(CTA, consumer, step, point) stamp table before the main kernel and write it to that
file after; the plain kernel only, CTAs 0..1023, steps 0..63).

Points of a step (each consumer's thread 0): 0 top, 1 lse / D rows stored and the next step's
loaded, 2 Q / dO stage ready, 3 S^T / dP^T issued, 4 lse / D barrier, 5 S^T ready, 6 P^T done,
7 dP^T ready, 8 dS^T computed, stored and fenced, 9 dV issued, 10 dS barrier (both consumers),
11 dQ and dK issued, 12 dV and dQ ready, 13 the dQ slice's buffer free, 14 dQ slice stored,
15 dK ready, 16 stage released.

For each row: kernel-only time (CUDA-graph replay of the backward op, the stamps compiled in but
the launcher not reading them), then one traced eager backward; per segment the median clocks
over steps 1 .. steps-2 of every recorded CTA; the step period (top to next top); and the skew
between the two consumers at points 5 and 10.

    PYTHONPATH=<traced py tree>:tools/bench python3 bwd_timeline.py --out DIR [--rows d64]

--rows d64 (session 42, its call 2): the head-dim-64 rows only, S16384 full among them. Session 42
also added the 10th / 90th percentiles of the S-ready skew to the last line of each row.
"""
import argparse
import os

import numpy as np
import torch
import triton.testing as tt

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--rep", type=float, default=30)
ap.add_argument("--rows", choices=("session41", "d64"), default="session41")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

NAMES = ["stats", "stage", "issue", "lseD-bar", "S-wait", "P", "dP-wait", "dS", "dV-issue", "dS-bar",
         "dQdK-issue", "dVdQ-wait", "dq-empty", "dq-store", "dK-wait", "release"]

ROWS = {
    "session41": [("d128 full S4096", 128, 4, 4096, 16, False), ("d128 causal S1024", 128, 16, 1024, 16, True),
                  ("d128 full S16384", 128, 1, 16384, 16, False), ("d64 full S4096", 64, 4, 4096, 32, False),
                  ("d64 causal S1024", 64, 16, 1024, 32, True)],
    "d64": [("d64 full S4096", 64, 4, 4096, 32, False), ("d64 causal S1024", 64, 16, 1024, 32, True),
            ("d64 full S16384", 64, 1, 16384, 32, False)],
}[args.rows]


def bwd_op(q, k, v, out, lse, dout, causal, scale):
    return lambda: torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False)


def main():
    import flashcore
    torch.manual_seed(0)
    lines = []
    for name, d, b, s, h, causal in ROWS:
        q, k, v, dout = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
        scale = d ** -0.5
        out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False)[:2]
        fn = bwd_op(q, k, v, out, lse, dout, causal, scale)
        ms = tt.do_bench_cudagraph(fn, rep=args.rep)
        pairs = b * h * (s * (s + 1) // 2 if causal else s * s)
        tflops = 2 * pairs * 5 * d / ms / 1e9
        path = os.path.join(args.out, name.replace(" ", "_") + ".bin")
        os.environ["FLASHCORE_BWD_TRACE_FILE"] = path
        fn()
        torch.cuda.synchronize()
        del os.environ["FLASHCORE_BWD_TRACE_FILE"]
        raw = np.fromfile(path, dtype=np.int32, count=8)
        ctas, roles, steps, points, grid, hd, bm, bn = raw
        t = np.fromfile(path, dtype=np.int64, offset=32).reshape(ctas, roles, steps, points)
        np.savez_compressed(path[:-4] + ".npz", t=t[:132], hdr=raw)  # the first 132 CTAs kept
        os.remove(path)
        seg = {i: [] for i in range(16)}
        periods, skew5, skew10 = [], [], []
        for c in range(min(ctas, grid)):
            for r in range(roles):
                used = np.nonzero(t[c, r, :, 0])[0]
                if len(used) < 4:
                    continue
                n = used[-1] + 1
                for st in range(1, n - 1):
                    row = t[c, r, st]
                    for i in range(16):
                        if row[i] and row[i + 1]:
                            seg[i].append(row[i + 1] - row[i])
                    if t[c, r, st + 1, 0]:
                        periods.append(t[c, r, st + 1, 0] - row[0])
            used = np.nonzero(t[c, 0, :, 0] * t[c, 1, :, 0])[0]
            for st in used[1:-1]:
                skew5.append(t[c, 1, st, 5] - t[c, 0, st, 5])
                skew10.append(t[c, 1, st, 10] - t[c, 0, st, 10])
        med = lambda x: float(np.median(x)) if len(x) else float("nan")
        lines.append("%s: %.3f ms, %.1f TFLOP/s (kernel-only, the backward op); grid %d, tile %d x %d" %
                     (name, ms, tflops, grid, bm, bn))
        lines.append("  step period median %.0f clocks (p10 %.0f, p90 %.0f), %d steps sampled" %
                     (med(periods), np.percentile(periods, 10) if periods else 0,
                      np.percentile(periods, 90) if periods else 0, len(periods)))
        lines.append("  " + "  ".join("%s %.0f" % (NAMES[i], med(seg[i])) for i in range(16)))
        pct = lambda x, q: float(np.percentile(x, q)) if len(x) else float("nan")
        lines.append("  consumer 1 - consumer 0 at S-ready: median %.0f clocks (p10 %.0f, p90 %.0f), at point 10 "
                     "(the dS barrier) %.0f" % (med(skew5), pct(skew5, 10), pct(skew5, 90), med(skew10)))
        print("\n".join(lines[-4:]), flush=True)
    with open(os.path.join(args.out, "bwd_timeline.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


main()
