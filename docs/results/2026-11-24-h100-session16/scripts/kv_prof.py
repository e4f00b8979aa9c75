"""Host-side profile of eager decode steps through flash_attn_with_kvcache (torch.profiler, CPU
activity): which ops and Python frames take the time of a call."""
import sys
sys.path.insert(0, "tools/bench")
import cProfile, pstats, io
import torch, flashcore
from torch.profiler import profile, ProfilerActivity
dt, b, hq, hk, d, n, ps = torch.bfloat16, 1, 32, 8, 128, 4096, 16
q = torch.randn(b, 1, hq, d, device="cuda", dtype=dt)
k1 = torch.randn(b, 1, hk, d, device="cuda", dtype=dt)
v1 = torch.randn(b, 1, hk, d, device="cuda", dtype=dt)
pages = (n + 64) // ps
kp = torch.randn(b * pages, ps, hk, d, device="cuda", dtype=dt)
vp = torch.randn_like(kp)
bt = torch.randperm(b * pages, device="cuda").view(b, pages).to(torch.int32)
lens = torch.full((b,), n, dtype=torch.int32, device="cuda")
call = lambda: flashcore.flash_attn_with_kvcache(q, kp, vp, k1, v1, cache_seqlens=lens, block_table=bt, causal=True)
for _ in range(50):
    call()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for _ in range(50):
        call()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
pr = cProfile.Profile()
pr.enable()
for _ in range(200):
    call()
torch.cuda.synchronize()
pr.disable()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
print(s.getvalue()[:6000])
