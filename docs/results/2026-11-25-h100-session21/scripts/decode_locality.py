"""Session 21: issue 16's decode rows (q 1 token, d128, bf16) with the paged caches' pages in order
(identity block table) and shuffled (tools/bench/decode.py's page_table), against the contiguous
cache, interleaved over --rounds: is page 16's gap to contiguous (the rows below 90% of the HBM
floor) the pages' physical scatter or the kernel's paged loads? CUDA-graph time
(tools/bench/decode.py graph_time_us), one process; % of the K + V floor at 3.35 TB/s."""
import statistics
import sys

import torch

import flashcore
sys.path.insert(0, "tools/bench")
from decode import DECODE_ROWS, graph_time_us, page_table, scatter_pages  # noqa: E402

ROUNDS = 3
gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in DECODE_ROWS:
    d = 128
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * d * 2 * 2 / 3.35e12 * 1e6
    calls = {"contiguous": lambda: flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens)}
    ref = calls["contiguous"]()
    caches = []
    for ps in (16, 256):
        pages = sk // ps
        for order in ("in order", "shuffled"):
            table = (torch.arange(b * pages, dtype=torch.int32).view(b, pages).cuda() if order == "in order"
                     else page_table(b, sk, ps, gen, "cuda"))
            kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
            caches.append((kc, vc, table))
            fn = (lambda kc=kc, vc=vc, table=table:
                  flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table))
            diff = (fn().float() - ref.float()).abs().max().item()
            assert diff < 2e-2, diff
            calls["page %d %s" % (ps, order)] = fn
    times = {name: [] for name in calls}
    for _ in range(ROUNDS):
        for name, fn in calls.items():
            times[name].append(graph_time_us(fn, 20, 10))
    print("B%d Hq%d Hk%d k%d (floor %.1f us)" % (b, hq, hk, sk, floor_us), flush=True)
    for name, ts in times.items():
        us = statistics.median(ts)
        print("  %-20s %8.1f us  %5.1f%% of floor" % (name, us, 100 * floor_us / us), flush=True)
    del caches, calls, k, v
    torch.cuda.empty_cache()
