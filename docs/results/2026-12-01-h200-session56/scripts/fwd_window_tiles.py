"""Which sm90a forward tile a causal sliding window wants (session 56). pick_fwd_tile gives head
dims 64 and 96 their 192-row long-rows tile from a sequence length on, whatever the window; a
window of W keys makes a 192-row tile span W + 192 keys for W + 1 needed a row (128-row tile:
W + 128). Kernel-only (CUDA-graph replay), the tiles forced in one process and alternating, bf16,
S 8192 B2: FLOP/s of the pairs the window leaves. Writes JSON to argv[1]."""
import json
import sys

import torch

import flashcore
from flashcore import _attention

ROUNDS = 3
S, B = 8192, 2
ROWS = [  # (label, head_dim, heads, heads_kv, sink)  (call 1; call 2 adds the d96 GQA row)
    ("gpt-oss d64 64/8 sink", 64, 64, 8, True),
    ("d64 MHA H32", 64, 32, 32, False),
    ("d96 MHA H32", 96, 32, 32, False),
    ("d96 GQA 32/8", 96, 32, 8, False),
]
import os
WINDOWS = tuple(int(w) for w in os.environ.get("WINDOWS", "128,256,512,1024,2048,4096,-1").split(","))
TILES = ("default", "long_rows")


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


def main(path):
    torch.manual_seed(0)
    out = []
    for label, d, h, hk, has_sink in ROWS:
        q = torch.randn(B, S, h, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, S, hk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(B, S, hk, d, device="cuda", dtype=torch.bfloat16)
        sink = torch.randn(h, device="cuda") if has_sink else None
        for w in WINDOWS:
            flops = 4 * B * h * d * pairs(S, w)
            graphs, outs = {}, {}
            for tile in TILES:
                _attention._set_forced_fwd_tile(tile)
                fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(w, 0),  # noqa: E731
                                                       learnable_sink=sink)
                with torch.no_grad():
                    graphs[tile] = graph_of(fn)
                    outs[tile] = fn()
            _attention._set_forced_fwd_tile(None)
            _attention._set_forced_fwd_tile(None)
            with torch.no_grad():
                auto = flashcore.flash_attn_func(q, k, v, causal=True, window_size=(w, 0), learnable_sink=sink)
            same = torch.equal(outs["default"], auto), torch.equal(outs["long_rows"], auto)
            times = {t: [] for t in TILES}
            for _ in range(ROUNDS):
                for t in TILES:
                    times[t].append(time_graph(graphs[t]))
            best = {t: min(v_) for t, v_ in times.items()}
            tf = {t: flops / (best[t] * 1e-6) / 1e12 for t in TILES}
            diff = (outs["default"].float() - outs["long_rows"].float()).abs().max().item()
            print("%-24s w %5d  default %7.1f us %6.1f TF/s  long_rows %7.1f us %6.1f TF/s  default/long %.3f"
                  "  auto=default %s auto=long %s  |out diff| %.1e" % (
                      label, w, best["default"], tf["default"], best["long_rows"], tf["long_rows"],
                      best["long_rows"] / best["default"], same[0], same[1], diff), flush=True)
            out.append(dict(row=label, window=w, head_dim=d, heads=h, heads_kv=hk, sink=has_sink, us=times,
                            tflops=tf, auto_is_default=same[0], auto_is_long_rows=same[1]))
            del graphs
        del q, k, v
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=out), f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
