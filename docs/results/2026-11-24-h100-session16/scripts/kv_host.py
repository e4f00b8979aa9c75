"""Eager per-call time of one decode step through flash_attn_with_kvcache (append 1 token, B1
Hq32 Hk8 d128, 4096 cached keys, contiguous and page 16) next to its CUDA-graph kernel time:
what the length checks (device reads, one synchronisation) cost an eager decode loop."""
import statistics, sys, time
sys.path.insert(0, "tools/bench")
import torch, flashcore
from decode import graph_time_us
dt, b, hq, hk, d, n = torch.bfloat16, 1, 32, 8, 128, 4096
q = torch.randn(b, 1, hq, d, device="cuda", dtype=dt)
k1 = torch.randn(b, 1, hk, d, device="cuda", dtype=dt)
v1 = torch.randn(b, 1, hk, d, device="cuda", dtype=dt)
kc = torch.randn(b, n + 64, hk, d, device="cuda", dtype=dt)
vc = torch.randn_like(kc)
ps = 16
pages = (n + 64) // ps
kp = torch.randn(b * pages, ps, hk, d, device="cuda", dtype=dt)
vp = torch.randn_like(kp)
bt = torch.randperm(b * pages, device="cuda").view(b, pages).to(torch.int32)
lens = torch.full((b,), n, dtype=torch.int32, device="cuda")
calls = {
    "contig": lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, k1, v1, cache_seqlens=lens, causal=True),
    "page16": lambda: flashcore.flash_attn_with_kvcache(q, kp, vp, k1, v1, cache_seqlens=lens, block_table=bt, causal=True),
}
for name, c in calls.items():
    ts = []
    for r in range(7):
        for _ in range(20):
            c()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(500):
            c()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) / 500 * 1e6)
    print("%s eager per call %.1f us (rounds %s) | graph kernel time %.1f us" % (
        name, statistics.median(ts), " ".join("%.1f" % x for x in ts), graph_time_us(c, 20, 10)), flush=True)
