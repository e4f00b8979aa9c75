"""Pack-GQA under sliding windows (session 57): the sm90a forward's tiles (forced: default 128 rows,
long_rows 192 rows) packed and unpacked (the test-only switches), one process, kernel-only
(CUDA-graph replay), rounds alternating. Causal, S 8192 B2, d64. Prints a line per (row, window)
and writes JSON to argv[1]: microseconds per config, TFLOP/s counting only the (query, key) pairs
the window leaves, whether packed out / lse equal the unpacked ones bitwise on each tile, and which
config the automatic pick equals."""
import json
import os
import sys

import torch

import flashcore
from flashcore import _attention

ROUNDS = int(os.environ.get("ROUNDS", "3"))
S, B = 8192, 2
ROWS = [  # (label, dtype, heads, heads_kv, sink, windows)
    ("gpt-oss d64 64/8 sink", torch.bfloat16, 64, 8, True, (128, 512, 1024, 4096, -1)),
    ("d64 32/8", torch.bfloat16, 32, 8, False, (128, 1024, 4096)),
    ("d64 16/8", torch.bfloat16, 16, 8, False, (128, 1024)),
    ("gpt-oss d64 64/8 sink fp16", torch.float16, 64, 8, True, (128, 1024)),
]
# WINDOWS=a,b,...: those windows on every row instead (call 4: the threshold's neighbourhood).
WINDOWS = tuple(int(w) for w in os.environ["WINDOWS"].split(",")) if os.environ.get("WINDOWS") else None
CONFIGS = [("unpacked", "default"), ("unpacked", "long_rows"), ("packed", "default"), ("packed", "long_rows")]


def pairs(s, w):
    return sum(min(i + 1, w + 1) if w >= 0 else i + 1 for i in range(s))


def graph_of(fn):
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(st)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g


def time_graph(g, reps=20):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    g.replay()
    a.record()
    for _ in range(reps):
        g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps * 1e3


def set_config(pack, tile):
    _attention._set_pack_gqa(pack == "packed")
    _attention._set_forced_fwd_tile(tile)


def main(path):
    torch.manual_seed(0)
    out = []
    for label, dtype, h, hk, has_sink, windows in ROWS:
        q = torch.randn(B, S, h, 64, device="cuda", dtype=dtype)
        k = torch.randn(B, S, hk, 64, device="cuda", dtype=dtype)
        v = torch.randn(B, S, hk, 64, device="cuda", dtype=dtype)
        sink = torch.randn(h, device="cuda") if has_sink else None
        for w in WINDOWS or windows:
            flops = 4 * B * h * 64 * pairs(S, w)
            fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(w, 0),  # noqa: E731
                                                   learnable_sink=sink, return_attn_probs=True)[:2]
            graphs, results = {}, {}
            for c in CONFIGS:
                set_config(*c)
                with torch.no_grad():
                    graphs[c] = graph_of(fn)
                    results[c] = fn()
            set_config("packed", None)
            with torch.no_grad():
                auto = fn()
            auto_is = [" ".join(c) for c in CONFIGS if all(torch.equal(a, b) for a, b in zip(results[c], auto))]
            bitwise = {tile: all(torch.equal(a, b) for a, b in zip(results[("packed", tile)], results[("unpacked", tile)]))
                       for tile in ("default", "long_rows")}
            times = {c: [] for c in CONFIGS}
            for r in range(ROUNDS):
                for c in (CONFIGS if r % 2 == 0 else CONFIGS[::-1]):
                    times[c].append(time_graph(graphs[c]))
            best = {c: min(t) for c, t in times.items()}
            base = best[("unpacked", "default")]
            print("%-28s w %5d  %s  auto=%s  packed==unpacked %s" % (
                label, w, "  ".join("%s/%s %6.1f us (%.3f)" % (c[0][:4], c[1][:4], best[c], base / best[c]) for c in CONFIGS),
                auto_is, bitwise), flush=True)
            out.append(dict(row=label, window=w, dtype=str(dtype), heads=h, heads_kv=hk, sink=has_sink,
                            us={" ".join(c): times[c] for c in CONFIGS},
                            tflops={" ".join(c): flops / (best[c] * 1e-6) / 1e12 for c in CONFIGS},
                            auto_is=auto_is, packed_bitwise_unpacked=bitwise))
            del graphs, results
        del q, k, v
        torch.cuda.empty_cache()
    set_config("packed", None)
    with open(path, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=out), f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
