"""Session 21: the cost and gain of the page-16 decode's address-order sort (a sort grid per call,
kernels/decode/page_sort.cuh) at the split rows of issue 16 (B1 H32 k65536, B1 Hq32 Hk8 k131072):
pages of 16 in order and shuffled, each with the pages visited in key order (forced, no sort) and
by the default rule (address order), against the contiguous cache; CUDA-graph time, rounds
interleaved, medians; % of the K + V floor at 3.35 TB/s."""
import statistics
import sys

import torch

import flashcore
from flashcore import kvcache
sys.path.insert(0, "tools/bench")
from decode import graph_time_us, page_table, scatter_pages  # noqa: E402

ROUNDS = 5
gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in ((1, 32, 32, 65536), (1, 32, 8, 131072)):
    d, ps = 128, 16
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * d * 2 * 2 / 3.35e12 * 1e6
    calls = {"contiguous": (None, lambda: flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens))}
    keep = []
    for order in ("in order", "shuffled"):
        table = (torch.arange(sk // ps, dtype=torch.int32).view(1, -1).cuda() if order == "in order"
                 else page_table(b, sk, ps, gen, "cuda"))
        kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
        keep.append((kc, vc, table))
        for visit in ("key", None):
            calls["page 16 %s, %s" % (order, visit or "default")] = (visit, (
                lambda kc=kc, vc=vc, table=table:
                flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table)))
    times = {name: [] for name in calls}
    for _ in range(ROUNDS):
        for name, (visit, fn) in calls.items():
            kvcache._set_forced_page_order(visit)
            times[name].append(graph_time_us(fn, 20, 10))
            kvcache._set_forced_page_order(None)
    print("B%d Hq%d Hk%d k%d (floor %.1f us)" % (b, hq, hk, sk, floor_us), flush=True)
    for name, ts in times.items():
        us = statistics.median(ts)
        print("  %-30s %8.1f us  %5.1f%% of floor" % (name, us, 100 * floor_us / us), flush=True)
    del keep, calls, k, v
    torch.cuda.empty_cache()
