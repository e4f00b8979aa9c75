"""Session 25: where a split decode step's time goes (issue 16). For a few decode rows (d128 bf16,
q 1 token): the graph time of 20 calls, then one profiled replay of that graph (torch.profiler,
CUDA activity) -> per call the decode grid's and the combine grid's durations and the gaps
between consecutive kernels; then a key-length sweep at a fixed split count, t = a + bytes / BW
fitted, so a is the step's fixed cost and BW its streaming bandwidth.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 decode_timeline.py --out trace_dir
"""
import argparse
import json
import os
import statistics

import torch
import flashcore

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="/tmp/decode_timeline")
ap.add_argument("--calls", type=int, default=20)
ap.add_argument("--reps", type=int, default=10)
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)
print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
BW = 3.35e12


def graph_of(fn, calls):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    torch.cuda.synchronize()
    return g


def time_graph(g, calls, reps):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0 / calls)
    return statistics.median(ts)


def make_call(b, hq, hk, sk, page, splits, gen):
    d = 128
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    table = None
    if page:
        pages = sk // page
        table = torch.randperm(b * pages, generator=gen).to("cuda").view(b, pages).to(torch.int32)
        kc = torch.empty((b * pages, page, hk, d), dtype=k.dtype, device="cuda")
        vc = torch.empty_like(kc)
        kc[table.long().flatten()] = k.reshape(-1, page, hk, d)
        vc[table.long().flatten()] = v.reshape(-1, page, hk, d)
        k, v = kc, vc

    def call():
        return flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, block_table=table, num_splits=splits)
    floor = b * sk * hk * d * 4 / BW * 1e6
    return call, floor


def timeline(g, name):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    path = os.path.join(args.out, name + ".json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
    ev.sort(key=lambda e: e["ts"])
    return [(e["name"], float(e["ts"]), float(e["dur"])) for e in ev]


def short(name):
    for key in ("combine", "page_sort", "check", "append", "decode_kernel"):
        if key in name:
            return key
    return name[:40]


gen = torch.Generator().manual_seed(0)
ROWS = [(1, 32, 8, 131072, 0, 0), (1, 32, 32, 65536, 0, 0), (1, 32, 8, 131072, 16, 0), (128, 32, 8, 2048, 0, 0),
        (128, 32, 8, 2048, 16, 0), (64, 64, 8, 4096, 16, 0)]
for (b, hq, hk, sk, page, splits) in ROWS:
    call, floor = make_call(b, hq, hk, sk, page, splits, gen)
    g = graph_of(call, args.calls)
    us = time_graph(g, args.calls, args.reps)
    tl = timeline(g, "B%d_Hk%d_k%d_p%d" % (b, hk, sk, page))
    kinds = {}
    for n, ts, dur in tl:
        kinds.setdefault(short(n), []).append(dur)
    gaps = [tl[i + 1][1] - (tl[i][1] + tl[i][2]) for i in range(len(tl) - 1)]
    pair_gaps = {}
    for i in range(len(tl) - 1):
        key = short(tl[i][0]) + "->" + short(tl[i + 1][0])
        pair_gaps.setdefault(key, []).append(tl[i + 1][1] - (tl[i][1] + tl[i][2]))
    span = (tl[-1][1] + tl[-1][2] - tl[0][1]) / args.calls if tl else 0
    print("B%d Hq%d Hk%d k%d page%d: graph %.1f us/call, %.1f%% of floor (%.1f us); profiled span %.1f us/call"
          % (b, hq, hk, sk, page, us, 100 * floor / us, floor, span), flush=True)
    for kname, durs in kinds.items():
        print("   kernel %-14s x%-3d median %.2f us (min %.2f max %.2f)" % (kname, len(durs), statistics.median(durs),
                                                                         min(durs), max(durs)))
    for key, gs in pair_gaps.items():
        print("   gap %-28s x%-3d median %.2f us (min %.2f max %.2f)" % (key, len(gs), statistics.median(gs), min(gs), max(gs)))
    del g
    torch.cuda.empty_cache()

print("== key-length sweep, contiguous, fixed split count: t = a + bytes / BW", flush=True)
for (b, hq, hk, splits, lengths) in ((1, 32, 8, 16, (32768, 65536, 131072, 262144)),
                                     (1, 32, 32, 4, (16384, 32768, 65536, 131072)),
                                     (8, 32, 32, 0, (8192, 16384, 32768))):
    pts = []
    for sk in lengths:
        call, floor = make_call(b, hq, hk, sk, 0, splits, gen)
        g = graph_of(call, args.calls)
        us = time_graph(g, args.calls, args.reps)
        mb = b * sk * hk * 128 * 4 / 1e6
        pts.append((mb, us))
        print("  B%d Hq%d Hk%d k%d splits %d: %.1f us, %.1f%% of floor" % (b, hq, hk, sk, splits, us, 100 * floor / us),
              flush=True)
        del g
        torch.cuda.empty_cache()
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
    a = my - slope * mx
    # slope: us per MB, so the streaming bandwidth is 1 / slope TB/s
    print("  fit: fixed %.2f us, streaming %.3f TB/s (%.1f%% of 3.35)" % (a, 1 / slope, 100 / slope / 3.35), flush=True)
