"""Session 53: one decode call per layout for ncu (B32 Hq32 Hk32 k8192 d128 bf16, or argv[2]'s
row): contig, or p<page size>_rand / p<page size>_ident (random or identity block table). Usage: python3 ncu_paged_case.py LAYOUT"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

lay = sys.argv[1]  # contig, p16_rand, p16_ident; a suffix /key or /address forces the page order
lay, _, order = lay.partition("/")
flashcore.kvcache._set_forced_page_order(order or None)
b, hq, hk, sk = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "32,32,32,8192").split(","))
D = 128
gen = torch.Generator().manual_seed(0)
q = torch.randn(b, 1, hq, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
tb = None
if lay != "contig":  # p<page size>_rand or p<page size>_ident
    ps = int(lay[1:].split("_")[0])
    tb = (decode.page_table(b, sk, ps, gen, "cuda") if lay.endswith("rand")
          else torch.arange(b * sk // ps, dtype=torch.int32, device="cuda").view(b, sk // ps))
    k, v = decode.scatter_pages(k, tb, ps), decode.scatter_pages(v, tb, ps)
for _ in range(3):
    flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, block_table=tb)
torch.cuda.synchronize()
