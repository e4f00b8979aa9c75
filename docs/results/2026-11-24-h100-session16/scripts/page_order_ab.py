"""Issue 16: paged decode visiting each split's pages in key order vs address order (the CTA
sorts its block-table entries), in one process on the same tensors, against a contiguous cache.
Random block tables (the bench's), plus the identity table at page 16 (already in address order:
the sort's own cost). CUDA-graph kernel time, interleaved rounds, median of the rounds."""
import sys
sys.path.insert(0, "tools/bench")
import torch, flashcore
from flashcore import kvcache
from decode import graph_time_us, scatter_pages
bw = 3.35e12
ROWS = [(1, 32, 32, 65536), (1, 32, 8, 131072), (128, 32, 8, 2048)] if "--diag" in sys.argv else [(1, 32, 32, 65536), (1, 32, 8, 131072), (8, 32, 32, 32768), (32, 32, 32, 8192),
        (128, 32, 8, 2048), (64, 64, 8, 4096)]
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 3
gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in ROWS:
    d = 128
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor = b * sk * hk * d * 4 / bw * 1e6
    cells = {"contig": (k, v, None, None)}
    for ps in ((16,) if "--diag" in sys.argv else (16, 32, 64, 256)):
        n = b * sk // ps
        t = torch.randperm(n, generator=gen).to("cuda").view(b, -1).to(torch.int32)
        kc, vc = scatter_pages(k, t, ps), scatter_pages(v, t, ps)
        for order in ("key", "address", None):
            if ps == 256 and order == "address":
                continue  # not eligible at d128 (page larger than the 64-key block)
            if order is None and ps not in (16, 256):
                continue
            cells["page%d-random-%s" % (ps, order or "rule")] = (kc, vc, t, order)
        if ps == 16:
            t2 = torch.arange(n, device="cuda").view(b, -1).to(torch.int32)
            k2, v2 = scatter_pages(k, t2, ps), scatter_pages(v, t2, ps)
            for order in ("key", "address"):
                cells["page16-ordered-%s" % order] = (k2, v2, t2, order)
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens)
    res = {}
    for rnd in range(ROUNDS):
        for name, (kc, vc, t, order) in cells.items():
            kvcache._set_forced_page_order(order)
            call = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t)
            err = (call().float() - ref.float()).abs().max().item()
            assert err < 1e-2, (name, err)
            res.setdefault(name, []).append(graph_time_us(call, 20, 10))
    kvcache._set_forced_page_order(None)
    c = sorted(res["contig"])[len(res["contig"]) // 2]
    for name, ts in res.items():
        us = sorted(ts)[len(ts) // 2]
        print("B%d Hq%d Hk%d k%d %-24s %7.1f us  %5.1f%% of floor  %+5.1f%% vs contig  (rounds %s)" % (
            b, hq, hk, sk, name, us, 100 * floor / us, 100 * (us / c - 1), " ".join("%.1f" % x for x in ts)), flush=True)
    del cells, k, v
    torch.cuda.empty_cache()
