"""Kernel durations of one paged decode call in key vs address order (torch.profiler / CUPTI)."""
import sys
sys.path.insert(0, "tools/bench")
import torch, flashcore
from flashcore import kvcache
from decode import scatter_pages
from torch.profiler import profile, ProfilerActivity
for (b, hq, hk, sk) in [(1, 32, 32, 65536), (1, 32, 8, 131072)]:
    d, ps = 128, 16
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    t = torch.randperm(b * sk // ps).to("cuda").view(b, -1).to(torch.int32)
    kc, vc = scatter_pages(k, t, ps), scatter_pages(v, t, ps)
    for order in ("key", "address"):
        kvcache._set_forced_page_order(order)
        call = lambda: flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t)
        for _ in range(3):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                call()
            torch.cuda.synchronize()
        evs = [e for e in prof.events() if e.device_type.name == "CUDA"]
        by = {}
        for e in evs:
            by.setdefault(e.name[:70], []).append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
        for name, ts in by.items():
            print("B%d Hk%d %-8s %-70s n=%d median %.1f us" % (b, hk, order, name, len(ts), sorted(ts)[len(ts) // 2]))
        # start offsets within one call: sort start -> decode start -> decode end
        evs.sort(key=lambda e: e.time_range.start)
        t0 = evs[0].time_range.start
        print("   timeline of the first call:", ["%s@%.1f-%.1f" % (e.name[:22], e.time_range.start - t0, e.time_range.end - t0) for e in evs[:3]])
    kvcache._set_forced_page_order(None)
