"""bf16 causal GQA without a window on head dim 64's 192-row tile, packed against unpacked (the
pack switch; fwd_launch.cuh runs such calls unpacked since session 55, measured then at 32 query
heads), one process, kernel-only (triton.testing.do_bench_cudagraph, min), 5 rounds alternating.
Session 57's call 1 read gpt-oss's full layer (64 / 8 heads with a sink) 2.6% faster packed.
Prints a line per row and writes JSON to argv[1]."""
import json
import sys

import torch
from triton.testing import do_bench_cudagraph

import flashcore
from flashcore import _attention

ROWS = [  # (label, batch, seqlen, heads, heads_kv, sink)
    ("64/8 sink S8192 B2 (gpt-oss full)", 2, 8192, 64, 8, True),
    ("64/8 S8192 B2", 2, 8192, 64, 8, False),
    ("32/8 S8192 B2", 2, 8192, 32, 8, False),
    ("32/4 S8192 B2", 2, 8192, 32, 4, False),
    ("64/8 sink S4096 B4", 4, 4096, 64, 8, True),
    ("64/8 sink S16384 B1", 1, 16384, 64, 8, True),
    ("32/8 S16384 B1", 1, 16384, 32, 8, False),
]


def main(path):
    torch.manual_seed(0)
    out = []
    _attention._set_forced_fwd_tile("long_rows")
    for label, b, s, h, hk, has_sink in ROWS:
        q = torch.randn(b, s, h, 64, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, s, hk, 64, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, s, hk, 64, device="cuda", dtype=torch.bfloat16)
        sink = torch.randn(h, device="cuda") if has_sink else None
        fn = lambda: flashcore.flash_attn_func(q, k, v, causal=True, learnable_sink=sink)  # noqa: E731
        times = {"packed": [], "unpacked": []}
        with torch.no_grad():
            for r in range(5):
                for cfg in (("packed", "unpacked") if r % 2 == 0 else ("unpacked", "packed")):
                    _attention._set_pack_gqa(cfg == "packed")
                    times[cfg].append(1e3 * float(do_bench_cudagraph(fn, rep=30, return_mode="min")))
        _attention._set_pack_gqa(True)
        best = {c: min(t) for c, t in times.items()}
        print("%-36s packed %7.1f us  unpacked %7.1f us  unpacked/packed %.3f" % (
            label, best["packed"], best["unpacked"], best["unpacked"] / best["packed"]), flush=True)
        out.append(dict(row=label, us=times))
        del q, k, v
    _attention._set_forced_fwd_tile(None)
    with open(path, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=out), f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
