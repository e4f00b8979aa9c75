"""Session 26 (from session 25's decode_cells.py, with --s_new): issue 16's decode cells (6 rows x
contiguous / page 16 / page 256; bf16, --s_new query tokens, causal when more than one -- a
speculative-decoding step -- heuristic split count; d128 or --dims) on the flashcore build importable in this process: CUDA-graph time
per call (20 calls a graph, median of 10 replays) and % of the HBM floor at 3.35 TB/s. One line per
cell, prefixed with --tag, for A/B runs of several builds in alternating processes.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 decode_cells.py --tag head
"""
import argparse
import statistics

import torch
import flashcore

ap = argparse.ArgumentParser()
ap.add_argument("--tag", default="")
ap.add_argument("--dims", default="128", help="head dims (each row at each)")
ap.add_argument("--rows", default="", help="row indices into ROWS (default: all)")
ap.add_argument("--s_new", type=int, default=1, help="query tokens a step (causal when > 1)")
args = ap.parse_args()
ROWS = [(1, 32, 32, 65536), (1, 32, 8, 131072), (8, 32, 32, 32768), (32, 32, 32, 8192), (128, 32, 8, 2048),
        (64, 64, 8, 4096)]
BW = 3.35e12


def graph_us(fn, calls=20, reps=10):
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
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0 / calls)
    return statistics.median(ts)


gen = torch.Generator().manual_seed(0)
rows = [ROWS[int(i)] for i in args.rows.split(",")] if args.rows else ROWS
for d, (b, hq, hk, sk) in [(d, r) for r in rows for d in map(int, args.dims.split(","))]:
    q = torch.randn(b, args.s_new, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor = b * sk * hk * d * 4 / BW * 1e6
    causal = args.s_new > 1
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1, causal=causal).float()
    for page in (0, 16, 256):
        table, kc, vc = None, k, v
        if page:
            pages = sk // page
            table = torch.randperm(b * pages, generator=gen).to("cuda").view(b, pages).to(torch.int32)
            kc = torch.empty((b * pages, page, hk, d), dtype=k.dtype, device="cuda")
            vc = torch.empty_like(kc)
            kc[table.long().flatten()] = k.reshape(-1, page, hk, d)
            vc[table.long().flatten()] = v.reshape(-1, page, hk, d)

        def call():
            return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, causal=causal)
        diff = (call().float() - ref).abs().max().item()
        us = graph_us(call)
        print("%s B%d Hq%d Hk%d k%d q%d d%d %-7s %8.1f us %5.1f%% (maxdiff %.2g)"
              % (args.tag, b, hq, hk, sk, args.s_new, d, "page%d" % page if page else "contig", us, 100 * floor / us, diff),
              flush=True)
        del kc, vc, table
    del q, k, v
    torch.cuda.empty_cache()
