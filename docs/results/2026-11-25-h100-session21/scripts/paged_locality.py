"""Session 20: chunked prefill (S_new 512 into 16k keys, Hq32 Hk8 d128, causal) over a paged cache
with the pages in order (identity table) and shuffled, at several page sizes, against the
contiguous cache: is the paged forward's gap the physical scatter or its own loads? CUDA-graph
time (tools/bench/decode.py graph_time_us), one process."""
import sys

import torch

import flashcore
sys.path.insert(0, "tools/bench")
from decode import graph_time_us, scatter_pages  # noqa: E402

b, sq, hq, hk, d, sk = 1, 512, 32, 8, 128, 16384
dt = torch.bfloat16
q = torch.randn(b, sq, hq, d, device="cuda", dtype=dt)
k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
flops = 4 * d * hq * sum(sk - sq + i + 1 for i in range(sq)) * b
plain = lambda: flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, causal=True)
ref = plain()
rows = [("contiguous", graph_time_us(plain, 20, 10))]
for ps in (16, 32, 64, 128, 256, 1024):
    pages = sk // ps
    for order in ("in order", "shuffled"):
        perm = torch.arange(pages) if order == "in order" else torch.randperm(pages, generator=torch.Generator().manual_seed(ps))
        table = perm.to(torch.int32).cuda().view(1, pages)
        kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
        fn = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, causal=True)
        diff = (fn().float() - ref.float()).abs().max().item()
        rows.append(("page %4d %s (maxdiff %.2g)" % (ps, order, diff), graph_time_us(fn, 20, 10)))
for name, us in rows:
    print("%-40s %8.1f us %6.0f TF/s  %.2f of contiguous" % (name, us, flops / us / 1e6, rows[0][1] / us), flush=True)
