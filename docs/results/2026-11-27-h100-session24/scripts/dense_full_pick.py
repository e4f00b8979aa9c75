"""Session 24: head dim 64's dense non-causal rows at the new long-rows threshold (1024 query
rows), the tile picked by shape beside both forced tiles, kernel-only (CUDA-graph replay), three
interleaved rounds, median: the paper grid's S 1024 row (B16 H32) and S 1536, 2048.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 dense_full_pick.py
"""
import statistics

import torch
import triton.testing as tt

from flashcore import _attention

print(torch.cuda.get_device_name(), "torch", torch.__version__)
rows = []
for dt_name, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
    for s in (1024, 1536, 2048):
        b = 16384 // s
        q, k, v = (torch.randn(b, s, 32, 64, device="cuda", dtype=dt) for _ in range(3))
        for tile in ("default", "long_rows", None):
            fn = lambda q=q, k=k, v=v: _attention.attention_core(q, k, v, softmax_scale=0.125, causal=False)
            rows.append(("%s d64 full S%d %s" % (dt_name, s, tile), fn, tile, 4 * b * 32 * 64 * s * s))
times = {r[0]: [] for r in rows}
for _ in range(3):
    for label, fn, tile, _ in rows:
        _attention._set_forced_fwd_tile(tile)
        fn()
        times[label].append(tt.do_bench_cudagraph(fn, rep=30))
        _attention._set_forced_fwd_tile(None)
res = {label: fl / statistics.median(times[label]) / 1e9 for label, _, _, fl in rows}
for label in res:
    if label.endswith(" None"):
        base = label[: -len(" None")]
        print("%-24s by shape %7.1f  default %7.1f  long_rows %7.1f TFLOP/s" % (
            base, res[label], res[base + " default"], res[base + " long_rows"]))
