"""Issue 16: the split-KV combine as a separate grid (session 16) vs merged by each query block's
last split CTA (session 17), in one process on the same tensors: contiguous, page 16 and page 256
(random tables, the bench's layout, each page order by rule). CUDA-graph kernel time, interleaved
rounds, median of the rounds, % of the K+V HBM floor at 3.35 TB/s."""
import sys
sys.path.insert(0, "tools/bench")
import torch, flashcore
from flashcore import kvcache
from decode import graph_time_us, scatter_pages
bw = 3.35e12
ROWS = [(1, 32, 32, 65536), (1, 32, 8, 131072), (8, 32, 32, 32768), (32, 32, 32, 8192), (128, 32, 8, 2048), (64, 64, 8, 4096)]
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in ROWS:
    d = 128
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor = b * sk * hk * d * 4 / bw * 1e6
    cells = {"contig": (k, v, None)}
    for ps in (16, 256):
        t = torch.randperm(b * sk // ps, generator=gen).to("cuda").view(b, -1).to(torch.int32)
        cells["page%d" % ps] = (scatter_pages(k, t, ps), scatter_pages(v, t, ps), t)
    kvcache._FUSED_COMBINE[0] = False
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, return_softmax_lse=True)
    res = {}
    for rnd in range(ROUNDS):
        for name, (kc, vc, t) in cells.items():
            for fused in (False, True):
                kvcache._FUSED_COMBINE[0] = fused
                call = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t,
                                                                 return_softmax_lse=True)
                out, lse = call()
                err = max((out.float() - ref[0].float()).abs().max().item(), (lse - ref[1]).abs().max().item())
                assert err < 1e-2, (name, fused, err)
                res.setdefault((name, fused), []).append(graph_time_us(lambda: call(), 20, 10))
    kvcache._FUSED_COMBINE[0] = True
    for name in cells:
        med = {}
        for fused in (False, True):
            ts = res[(name, fused)]
            med[fused] = sorted(ts)[len(ts) // 2]
        print("B%d Hq%d Hk%d k%d %-7s separate %7.1f us %5.1f%%  fused %7.1f us %5.1f%%  fused/separate %.4f  (rounds %s | %s)" % (
            b, hq, hk, sk, name, med[False], 100 * floor / med[False], med[True], 100 * floor / med[True],
            med[True] / med[False], " ".join("%.1f" % x for x in res[(name, False)]),
            " ".join("%.1f" % x for x in res[(name, True)])), flush=True)
    del cells, k, v
    torch.cuda.empty_cache()
