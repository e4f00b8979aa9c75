"""Session 29: one B1 Hq32 Hk32 k65536 d128 bf16 decode call over a page-256 cache with a random
block table, for ncu; run with the experiment build (exp_switches.diff) and FLASHCORE_EXP_L2PROMO
set. Runs the call 4 times; profile the 3rd decode_kernel launch."""
import os
import sys

import torch
import flashcore

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../tools/bench"))
from decode import scatter_pages  # noqa: E402

b, hq, hk, sk, d, ps = 1, 32, 32, 65536, 128, 256
q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
table = torch.randperm(b * sk // ps).view(b, -1).to(torch.int32).cuda()
k, v = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
for _ in range(4):
    flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, block_table=table)
torch.cuda.synchronize()
print("ok", os.environ.get("FLASHCORE_EXP_L2PROMO"))
