"""One decode call (q 1 token, B1 H32 k65536, d128, bf16) for ncu: argv[1] is "contig" or a page
size (pages in order: for B1 the contiguous cache's very addresses). Warm-up calls outside the
profiled range."""
import sys

import torch

import flashcore
sys.path.insert(0, "tools/bench")
from decode import scatter_pages  # noqa: E402

b, hq, hk, d, sk = 1, 32, 32, 128, 65536
dt = torch.bfloat16
q = torch.randn(b, 1, hq, d, device="cuda", dtype=dt)
k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
if sys.argv[1] == "contig":
    fn = lambda: flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens)
else:
    ps = int(sys.argv[1])
    table = torch.arange(sk // ps, dtype=torch.int32, device="cuda").view(1, -1)
    kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
    fn = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table)
for _ in range(3):
    fn()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
fn()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
