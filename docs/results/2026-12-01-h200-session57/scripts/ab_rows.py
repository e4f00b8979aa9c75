"""One process's forward timings of session 57's A/B rows on the flashcore build on PYTHONPATH (the
call script alternates builds): kernel-only, triton.testing.do_bench_cudagraph (median of CUDA-graph
replays), the tile and packing each call picks by itself. Causal, S 8192 B2. Prints one JSON line
{row: microseconds} (session 56's ab_table.py reads it)."""
import json

import torch
from triton.testing import do_bench_cudagraph

import flashcore

ROWS = [  # (label, dtype, head_dim, heads, heads_kv, window_left, sink)
    ("gpt-oss d64 64/8 sink w128", torch.bfloat16, 64, 64, 8, 128, True),
    ("gpt-oss d64 64/8 sink w512", torch.bfloat16, 64, 64, 8, 512, True),
    ("gpt-oss d64 64/8 sink w1024", torch.bfloat16, 64, 64, 8, 1024, True),
    ("gpt-oss d64 64/8 sink w2048", torch.bfloat16, 64, 64, 8, 2048, True),
    ("gpt-oss d64 64/8 sink full", torch.bfloat16, 64, 64, 8, -1, True),
    ("gpt-oss fp16 w128", torch.float16, 64, 64, 8, 128, True),
    ("gpt-oss fp16 w1024", torch.float16, 64, 64, 8, 1024, True),
    ("d64 32/8 w128", torch.bfloat16, 64, 32, 8, 128, False),
    ("d64 32/8 w1024", torch.bfloat16, 64, 32, 8, 1024, False),
    ("d64 32/8 w4096", torch.bfloat16, 64, 32, 8, 4096, False),
    ("d64 16/8 w128 (unpacked)", torch.bfloat16, 64, 16, 8, 128, False),
    ("d64 H32 w128 (MHA)", torch.bfloat16, 64, 32, 32, 128, False),
    ("d128 32/8 w1024", torch.bfloat16, 128, 32, 8, 1024, False),
    ("d64 32/8 causal", torch.bfloat16, 64, 32, 8, -1, False),
]


def main():
    res = {}
    gen = torch.Generator(device="cuda").manual_seed(0)
    b, s = 2, 8192
    for label, dtype, d, h, hk, wl, has_sink in ROWS:
        q = torch.randn(b, s, h, d, device="cuda", dtype=dtype, generator=gen)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=dtype, generator=gen)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=dtype, generator=gen)
        sink = torch.randn(h, device="cuda", generator=gen) if has_sink else None
        with torch.no_grad():
            fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(wl, 0),  # noqa: E731
                                                   learnable_sink=sink)
            res[label] = 1e3 * float(do_bench_cudagraph(fn, rep=40, return_mode="min"))
        del q, k, v
    print(json.dumps(res))


if __name__ == "__main__":
    main()
