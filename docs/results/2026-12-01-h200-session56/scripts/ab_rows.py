"""One process's timings of session 56's A/B rows on the flashcore build on PYTHONPATH (the call
script alternates builds, ABBA): forward rows kernel-only (CUDA-graph replay, the tile each call
picks by itself), backward rows as the backward kernels of one autograd call (CUDA events, eager).
Prints one JSON line {row: microseconds}."""
import json

import torch

import flashcore

FWD = [  # (label, head_dim, batch, seqlen, heads, heads_kv, window_left, sink)
    ("fwd gpt-oss d64 64/8 sink w128", 64, 2, 8192, 64, 8, 128, True),
    ("fwd gpt-oss d64 64/8 sink w512", 64, 2, 8192, 64, 8, 512, True),
    ("fwd gpt-oss d64 64/8 sink w1024", 64, 2, 8192, 64, 8, 1024, True),
    ("fwd gpt-oss d64 64/8 sink w2048", 64, 2, 8192, 64, 8, 2048, True),
    ("fwd gpt-oss d64 64/8 sink full", 64, 2, 8192, 64, 8, -1, True),
    ("fwd d96 H32 w128", 96, 2, 8192, 32, 32, 128, False),
    ("fwd d96 H32 w1024", 96, 2, 8192, 32, 32, 1024, False),
    ("fwd d128 32/8 w1024", 128, 2, 8192, 32, 8, 1024, False),
    ("fwd d128 32/8 w4096 (mistral)", 128, 2, 8192, 32, 8, 4096, False),
    ("fwd d256 8/4 w1024 (gemma3 local)", 256, 2, 8192, 8, 4, 1024, False),
    ("fwd d128 32/8 causal", 128, 2, 8192, 32, 8, -1, False),
]
BWD = [  # (label, head_dim, batch, seqlen, heads, heads_kv)
    ("bwd qwen2.5 d128 28/4 S8192 B2", 128, 2, 8192, 28, 4),
    ("bwd qwen2.5 d128 28/4 S4096 B4", 128, 4, 4096, 28, 4),
    ("bwd llama3-70b d128 64/8 S8192 B1", 128, 1, 8192, 64, 8),
    ("bwd llama3 d128 32/8 S8192 B2", 128, 2, 8192, 32, 8),
    ("bwd MHA d64 H32 S4096 B4", 64, 4, 4096, 32, 32),
]


def graph_us(fn, reps=20):
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(st)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    g.replay()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = 1e30
    for _ in range(3):
        a.record()
        for _ in range(reps):
            g.replay()
        b.record()
        torch.cuda.synchronize()
        best = min(best, a.elapsed_time(b) / reps * 1e3)
    return best


def main():
    res = {}
    gen = torch.Generator(device="cuda").manual_seed(0)
    for label, d, b, s, h, hk, wl, has_sink in FWD:
        q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        sink = torch.randn(h, device="cuda", generator=gen) if has_sink else None
        with torch.no_grad():
            res[label] = graph_us(lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(wl, 0),
                                                                     learnable_sink=sink))
        del q, k, v
    for label, d, b, s, h, hk in BWD:
        q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=gen).requires_grad_(True)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen).requires_grad_(True)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=gen).requires_grad_(True)
        dout = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        out = flashcore.flash_attn_func(q, k, v, causal=True)
        for _ in range(3):
            torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
        torch.cuda.synchronize()
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        best = 1e30
        for _ in range(3):
            a.record()
            for _ in range(5):
                torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
            e.record()
            torch.cuda.synchronize()
            best = min(best, a.elapsed_time(e) / 5 * 1e3)
        res[label] = best
        del q, k, v, dout, out
        torch.cuda.empty_cache()
    print(json.dumps(res))


if __name__ == "__main__":
    main()
