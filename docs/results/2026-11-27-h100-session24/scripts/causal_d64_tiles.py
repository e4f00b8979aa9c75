"""Session 24: where the d64 causal forward's 192-row (long-rows) tile starts to pay, dense and
packed: forced default vs long_rows tiles, kernel-only (CUDA-graph replay), rows interleaved over
--rounds, median kept; 16k tokens per dense row (B = 16384 / S, H 32), packed rows of 64 seeded
uniform lengths lo..hi (H 32) and of equal lengths.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 causal_d64_tiles.py
"""
import random
import statistics

import torch
import triton.testing as tt

from flashcore import _attention

print(torch.cuda.get_device_name(), "torch", torch.__version__)
H, D = 32, 64
rows = []
for dt_name, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
    cases = [("dense S%d" % s, None, s) for s in (2048, 2560, 3072, 3584, 4096)]
    for lo, hi in ((100, 2500), (100, 3000), (100, 3500), (100, 4000), (1000, 3000), (2048, 2048), (3072, 3072)):
        rng = random.Random(13)
        cases.append(("packed64 %d-%d" % (lo, hi), [rng.randint(lo, hi) for _ in range(64)], hi))
    for name, lengths, s in cases:
        if lengths is None:
            b = max(1, 16384 // s)
            q, k, v = (torch.randn(b, s, H, D, device="cuda", dtype=dt) for _ in range(3))
            extra = {}
            pairs = b * s * (s + 1) // 2
        else:
            n = sum(lengths)
            cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
            q, k, v = (torch.randn(n, H, D, device="cuda", dtype=dt) for _ in range(3))
            extra = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lengths), max_seqlen_k=max(lengths))
            pairs = sum(x * (x + 1) // 2 for x in lengths)
        for tile in ("default", "long_rows"):
            fn = lambda q=q, k=k, v=v, extra=extra: _attention.attention_core(q, k, v, softmax_scale=D ** -0.5,
                                                                              causal=True, **extra)
            rows.append(("%s %s %s" % (dt_name, name, tile), fn, tile, 4 * H * D * pairs))
times = {r[0]: [] for r in rows}
for _ in range(3):
    for label, fn, tile, _ in rows:
        _attention._set_forced_fwd_tile(tile)
        fn()
        times[label].append(tt.do_bench_cudagraph(fn, rep=30))
        _attention._set_forced_fwd_tile(None)
res = {}
for label, fn, tile, fl in rows:
    ms = statistics.median(times[label])
    res[label] = fl / ms / 1e9
for label in res:
    if label.endswith(" default"):
        base = label[: -len(" default")]
        print("%-36s default %7.1f long_rows %7.1f TFLOP/s  long/default %.3f"
              % (base, res[label], res[base + " long_rows"], res[base + " long_rows"] / res[label]))
