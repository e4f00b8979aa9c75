"""Session 27: kernel durations of the B1 decode rows at page 16 (random pages, address order:
sort grid + decode grid + combine) from torch.profiler over 20 graph replays of one call each, and the
spans between the first kernel's start and the last one's end per replay."""
import collections
import os
import sys

import torch
import flashcore
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../tools/bench"))
from decode import scatter_pages  # noqa: E402

gen = torch.Generator().manual_seed(0)
for (b, hq, hk, sk) in [(1, 32, 32, 65536), (1, 32, 8, 131072)]:
    d, ps = 128, 16
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    for layout in ("contig", "page16"):
        if layout == "contig":
            kc, vc, t = k, v, None
        else:
            t = torch.randperm(b * sk // ps, generator=gen).view(b, -1).to(torch.int32).cuda()
            kc, vc = scatter_pages(k, t, ps), scatter_pages(v, t, ps)
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=t)
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                g.replay()
                torch.cuda.synchronize()
        ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        dur = collections.defaultdict(list)
        for e in ev:
            dur[e.name.split("<")[0].split("(")[0]].append(e.time_range.elapsed_us())
        print("B%d Hq%d Hk%d k%d %s:" % (b, hq, hk, sk, layout))
        for name, ds in dur.items():
            ds.sort()
            print("   %-40s n %3d median %7.1f us" % (name[:40], len(ds), ds[len(ds) // 2]))
        # per replay: first start to last end, with the start gaps of each kernel from the first
        ev.sort(key=lambda e: e.time_range.start)
        per = len(ev) // 20
        spans, offs = [], collections.defaultdict(list)
        for i in range(20):
            grp = ev[i * per:(i + 1) * per]
            t0 = grp[0].time_range.start
            spans.append(max(e.time_range.end for e in grp) - t0)
            for e in grp:
                offs[e.name.split("<")[0][:30]].append((e.time_range.start - t0, e.time_range.end - t0))
        spans.sort()
        print("   span median %.1f us; starts/ends from the first start (median): %s" % (
            spans[10], "; ".join("%s %.1f-%.1f" % (n, sorted(x[0] for x in o)[len(o) // 2], sorted(x[1] for x in o)[len(o) // 2])
                                 for n, o in offs.items())))
        del kc, vc
    del q, k, v
    torch.cuda.empty_cache()
