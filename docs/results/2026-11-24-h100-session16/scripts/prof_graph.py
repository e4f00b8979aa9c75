"""Timeline of the kernels of a CUDA graph of 3 paged decode calls (key vs address order)."""
import sys
sys.path.insert(0, "tools/bench")
import torch, flashcore
from flashcore import kvcache
from decode import scatter_pages
from torch.profiler import profile, ProfilerActivity
for (b, hq, hk, sk) in [(1, 32, 8, 131072), (1, 32, 32, 65536)]:
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
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                call()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(3):
                call()
        g.replay(); torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            g.replay()
            torch.cuda.synchronize()
        evs = sorted([e for e in prof.events() if e.device_type.name == "CUDA" and "flashcore" in e.name],
                     key=lambda e: e.time_range.start)
        if not evs:
            print("no kernel events in the graph replay"); continue
        t0 = evs[0].time_range.start
        print("B%d Hk%d %s:" % (b, hk, order), "  ".join("%s %.1f-%.1f" % (
            e.name.split("<")[0].split("::")[-1].replace("decode_", "")[:12], e.time_range.start - t0, e.time_range.end - t0) for e in evs))
    kvcache._set_forced_page_order(None)
