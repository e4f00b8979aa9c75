"""Session 24 (second form, --by_shape): the same batches with the tile picked by shape next to both
forced tiles, to check the packed-batch rule routes each as measured. First form: packed (cu_seqlens) batches at head dim 64 on each forward tile, forced: the 192-row
long-rows tile against the 128-row default, for batches whose longest sequence is under the
causal rule's 3072 (and the non-causal rule's 2048), by the spread of their lengths. Kernel-only
(CUDA-graph replay), rows interleaved over three rounds, median. 64 sequences, H32.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 packed_d64_tiles.py
"""
import random
import statistics

import torch
import triton.testing as tt

from flashcore import _attention

import sys
BY_SHAPE = "--by_shape" in sys.argv
print(torch.cuda.get_device_name(), "torch", torch.__version__)
H, D, N = 32, 64, 64
rows = []
cases = [(True, 100, 1024), (True, 100, 1536), (True, 100, 2048), (True, 500, 2048), (True, 1024, 2048),
         (True, 1500, 2500), (True, 1800, 2200), (True, 2000, 2048), (True, 2048, 2048), (True, 2560, 2560),
         (True, 100, 3000), (False, 100, 1024), (False, 100, 1536), (False, 500, 2000), (False, 1536, 1536)]
DENSE = [(False, 1024), (False, 1280), (False, 1536), (False, 1792), (True, 2048)] if BY_SHAPE else []
for dt_name, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
    for causal, s in DENSE:  # dense (B = 16384 / S) beside the packed batches: the dense rule's edges
        b = 16384 // s
        q, k, v = (torch.randn(b, s, H, D, device="cuda", dtype=dt) for _ in range(3))
        label = "%s %s dense S%d" % (dt_name, "causal" if causal else "full", s)
        for tile in ("default", "long_rows", None):
            fn = lambda q=q, k=k, v=v, c=causal: _attention.attention_core(q, k, v, softmax_scale=D ** -0.5, causal=c)
            rows.append((label + " " + str(tile), fn, tile, 4 * H * D * b * (s * (s + 1) // 2 if causal else s * s)))
    for causal, lo, hi in cases:
        rng = random.Random(7)
        lengths = [rng.randint(lo, hi) for _ in range(N)]
        n = sum(lengths)
        cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
        q, k, v = (torch.randn(n, H, D, device="cuda", dtype=dt) for _ in range(3))
        extra = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lengths), max_seqlen_k=max(lengths))
        pairs = sum(x * (x + 1) // 2 if causal else x * x for x in lengths)
        label = "%s %s %d-%d (mean/max %.2f)" % (dt_name, "causal" if causal else "full", lo, hi,
                                               n / N / max(lengths))
        for tile in (("default", "long_rows", None) if BY_SHAPE else ("default", "long_rows")):
            fn = lambda q=q, k=k, v=v, extra=extra, c=causal: _attention.attention_core(
                q, k, v, softmax_scale=D ** -0.5, causal=c, **extra)
            rows.append((label + " " + str(tile), fn, tile, 4 * H * D * pairs))
times = {r[0]: [] for r in rows}
for _ in range(3):
    for label, fn, tile, _ in rows:
        _attention._set_forced_fwd_tile(tile)
        fn()
        times[label].append(tt.do_bench_cudagraph(fn, rep=25))
        _attention._set_forced_fwd_tile(None)
res = {label: fl / statistics.median(times[label]) / 1e9 for label, _, _, fl in rows}
for label in res:
    if label.endswith(" default"):
        base = label[: -len(" default")]
        line = "%-46s default %7.1f long_rows %7.1f  long/default %.3f" % (
            base, res[label], res[base + " long_rows"], res[base + " long_rows"] / res[label])
        if BY_SHAPE:
            line += "  by shape %7.1f (%s)" % (res[base + " None"], "long" if abs(res[base + " None"] - res[base + " long_rows"]) < abs(res[base + " None"] - res[label]) else "default")
        print(line)
