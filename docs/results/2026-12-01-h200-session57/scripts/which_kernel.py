"""Which sm90a forward kernel (torch.profiler name) and how long (kernel-only, do_bench_cudagraph
min) gpt-oss's 64 / 8 layer with a sink takes at windows 1024 / 2048 / 4096, on the build on
PYTHONPATH. One JSON line {window: [kernel, us]}."""
import json

import torch
from triton.testing import do_bench_cudagraph

import flashcore

gen = torch.Generator(device="cuda").manual_seed(0)
q = torch.randn(2, 8192, 64, 64, device="cuda", dtype=torch.bfloat16, generator=gen)
k, v = (torch.randn(2, 8192, 8, 64, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
sink = torch.randn(64, device="cuda", generator=gen)
res = {}
with torch.no_grad():
    for w in (1024, 2048, 4096):
        fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(w, 0), learnable_sink=sink)  # noqa: E731
        fn()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        names = [e.name for e in prof.events() if "fwd_kernel" in e.name]
        res[w] = [names[0] if names else None, 1e3 * float(do_bench_cudagraph(fn, rep=40, return_mode="min"))]
print(json.dumps(res))
