"""Diagnosis of the page-16 decode gap (issue 16): the same decode step over one cache laid out
contiguously and paged with page 16 / 256, where the block table is (a) a random permutation of
the whole pool (the bench's), (b) the identity (pages in address order), (c) random only within
2 MiB groups of pages (every 2 MiB region read as in (b), page order scrambled inside it).
If (b) and (c) match contiguous and (a) does not, the gap is address translation (2 MiB TLB
reach), not the kernel's per-page work. CUDA-graph time, interleaved rounds, median of medians."""
import sys
sys.path.insert(0, "tools/bench")
import torch, flashcore
from decode import graph_time_us, scatter_pages
bw = 3.35e12
rows = [(1, 32, 32, 65536), (1, 32, 8, 131072)]
gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in rows:
    d = 128
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor = b * sk * hk * d * 4 / bw * 1e6
    layouts = {"contig": (k, v, None)}
    for ps in (16, 256):
        n = b * sk // ps
        page_bytes = ps * hk * d * 2
        group = max(1, (2 << 20) // page_bytes)
        tabs = {"random": torch.randperm(n, generator=gen),
                "ordered": torch.arange(n),
                "random-in-2MiB": torch.cat([g[torch.randperm(g.numel(), generator=gen)] for g in torch.arange(n).split(group)])}
        # random pages, but each split's pages visited in address order (what a kernel that sorts
        # its range's block-table entries would read)
        from flashcore import kvcache
        splits = kvcache._plan(kvcache._device_arch(0), d, b, hq, hk, 1, sk, kvcache._num_sms(0), 0)
        per = -(-n // splits)
        r = torch.randperm(n, generator=gen)
        tabs["random-sorted-per-split(%d)" % splits] = torch.cat([c.sort().values for c in r.split(per)])
        for name, t in tabs.items():
            t = t.to("cuda").view(b, -1).to(torch.int32)
            layouts["page%d-%s" % (ps, name)] = (scatter_pages(k, t, ps), scatter_pages(v, t, ps), t)
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens)
    res = {}
    for rnd in range(3):
        for name, (kc, vc, t) in layouts.items():
            call = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t)
            assert (call().float() - ref.float()).abs().max().item() < 1e-2, name
            res.setdefault(name, []).append(graph_time_us(call, 20, 10))
    for name, ts in res.items():
        us = sorted(ts)[1]
        print("B%d Hq%d Hk%d k%d %-22s %7.1f us  %5.1f%% of floor  (rounds %s)" % (
            b, hq, hk, sk, name, us, 100 * floor / us, " ".join("%.1f" % x for x in ts)), flush=True)
    del layouts, k, v
    torch.cuda.empty_cache()
