"""Session 27 (session 28 adds <order>_addr): issue 16's decode cells (q 1 token, bf16, heuristic split count) with the physical
pages of the paged caches in several orders, on the flashcore build importable in this process.
CUDA-graph time per call (tools/bench/decode.py graph_time_us: 20 calls a graph, median of 10
replays) and % of the HBM floor (3.35 TB/s on an H100, 4.8 on an H200); one line per cell, prefixed with --tag, so that
several builds can run in alternating processes.

Orders of a (batch, pages) block table over a pool of batch x pages physical pages:
  random   torch.randperm over the pool (tools/bench/decode.py page_table: the benchmark's order)
  <order>_key  the same table, the call forced to visit pages in key order (no address-order sort)
  <order>_addr the same table, the call forced to visit pages in address order where it may
  inorder  each sequence's pages consecutive and ascending (the contiguous cache's bytes)
  grouped  the pool cut into 2 MiB runs of consecutive pages; the runs in random order and the
           pages inside each run in random order: random at page granularity, but a sequence
           stays inside one 2 MiB region for 2 MiB of its pages (a GPU large page)

    PYTHONPATH=<bundle>/runfiles/_main/py python3 decode_orders.py --tag head --orders random,grouped
"""
import argparse
import os
import sys

import torch
import flashcore
from flashcore import kvcache

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../tools/bench"))
from decode import DECODE_ROWS, graph_time_us, hbm_bandwidth, scatter_pages  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--tag", default="")
ap.add_argument("--dims", default="128")
ap.add_argument("--rows", default="", help="row indices into DECODE_ROWS (default: all)")
ap.add_argument("--pages", default="16,256")
ap.add_argument("--orders", default="random,random_key,inorder,grouped")
ap.add_argument("--contig", type=int, default=1, help="also time the contiguous cache")
ap.add_argument("--rounds", type=int, default=1, help="rounds over the cells in this process (median kept)")
args = ap.parse_args()
BW = hbm_bandwidth(torch.cuda.get_device_name())  # H100 SXM 3.35 TB/s, H200 4.8 TB/s
LARGE_PAGE = 2 << 20


def table_of(order, batch, pages, page_bytes, gen):
    n = batch * pages
    if order == "random":
        flat = torch.randperm(n, generator=gen)
    elif order == "inorder":
        flat = torch.arange(n)
    elif order == "grouped":
        g = max(1, min(n, LARGE_PAGE // page_bytes))
        assert n % g == 0
        runs = torch.randperm(n // g, generator=gen)
        inner = torch.argsort(torch.rand(n // g, g, generator=gen), dim=1)
        flat = (runs[:, None] * g + inner).flatten()
    else:
        raise ValueError("order %r" % order)
    return flat.view(batch, pages).to(torch.int32).cuda()


gen = torch.Generator().manual_seed(0)
rows = [DECODE_ROWS[int(i)] for i in args.rows.split(",")] if args.rows else DECODE_ROWS
orders = [o for o in args.orders.split(",") if o]
for d, (b, hq, hk, sk) in [(d, r) for r in rows for d in map(int, args.dims.split(","))]:
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor = b * sk * hk * d * 4 / BW * 1e6
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
    cells = []  # (name, kc, vc, table, forced page order)
    tables = {}
    if args.contig:
        cells.append(("contig", k, v, None, None))
    for ps in [int(x) for x in args.pages.split(",") if x]:
        tables.clear()
        for order in orders:
            base = order.rsplit("_", 1)[0] if order.endswith(("_key", "_addr")) else order
            if base not in tables:
                t = table_of(base, b, sk // ps, ps * hk * d * 2, gen)
                tables[base] = (t, scatter_pages(k, t, ps), scatter_pages(v, t, ps))
            t, kc, vc = tables[base]
            forced = "key" if order.endswith("_key") else "address" if order.endswith("_addr") else None
            cells.append(("page%d %s" % (ps, order), kc, vc, t, forced))
    times = {c[0]: [] for c in cells}
    for _ in range(args.rounds):
        for name, kc, vc, table, forced in cells:
            kvcache._set_forced_page_order(forced)
            try:
                def call(kc=kc, vc=vc, table=table):
                    return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table)
                diff = (call().float() - ref).abs().max().item()
                assert diff < 2e-2, (name, diff)
                times[name].append(graph_time_us(call))
            finally:
                kvcache._set_forced_page_order(None)
    shape = "B%d Hq%d Hk%d k%d d%d" % (b, hq, hk, sk, d)
    for name, ts in times.items():
        us = sorted(ts)[len(ts) // 2]
        print("%s %-26s %-22s %8.1f us %5.1f%%" % (args.tag, shape, name, us, 100 * floor / us), flush=True)
    del q, k, v, cells, tables, ref
    torch.cuda.empty_cache()
