"""Session 27: one B1 decode call (d128 bf16, q 1 token) for ncu, --variant contig | inorder_key
(page 16, pages in physical order, forced key order: the contiguous cache's bytes through the
paged kernel) | random (page 16, random block table, the default address order). Runs the call
4 times; profile the 3rd decode_kernel launch."""
import argparse
import os
import sys

import torch
import flashcore
from flashcore import kvcache

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../tools/bench"))
from decode import scatter_pages  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--variant", default="contig")
ap.add_argument("--row", type=int, default=0)
args = ap.parse_args()
b, hq, hk, sk = [(1, 32, 32, 65536), (1, 32, 8, 131072)][args.row]
d, ps = 128, 16
q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
table = None
if args.variant != "contig":
    n = b * sk // ps
    flat = torch.arange(n) if args.variant.startswith("inorder") else torch.randperm(n)
    table = flat.view(b, -1).to(torch.int32).cuda()
    k, v = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
if args.variant.endswith("_key"):
    kvcache._set_forced_page_order("key")
for _ in range(4):
    flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, block_table=table)
torch.cuda.synchronize()
print("ok", args.variant)
