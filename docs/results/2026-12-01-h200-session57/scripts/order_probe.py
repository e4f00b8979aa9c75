"""The window-2048 row of ab_rows.py (gpt-oss 64 / 8, sink, S 8192 B2, bf16; the same unpacked
192-row kernel and launch in both builds) timed before and after the window-1024 row, which the new
build runs packed: w2048, w1024, w2048, w1024, w2048 in one process, kernel-only
(triton.testing.do_bench_cudagraph, min). One JSON line {step: us}; also the GPU's SM clock after
each step (torch.cuda.clock_rate, MHz)."""
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
    for i, w in enumerate((2048, 1024, 2048, 1024, 2048)):
        fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(w, 0), learnable_sink=sink)  # noqa: E731
        res["%d w%d" % (i, w)] = round(1e3 * float(do_bench_cudagraph(fn, rep=40, return_mode="min")), 1)
        res["%d clock" % i] = torch.cuda.clock_rate()
print(json.dumps(res))
