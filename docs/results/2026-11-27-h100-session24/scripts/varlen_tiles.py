"""Session 24: the packed mixed-length forward row (issue 13: 64 sequences of seeded lengths
100..4000, the bench's features row) on each sm90a forward tile, forced, against the equal-length
packed batch (4 x 4096) on the tile it picks. Kernel-only (CUDA-graph replay), rows interleaved
over --rounds, median kept. TFLOP/s of the FLOPs needed.

    PYTHONPATH=<bundle>/runfiles/_main/py:tools/bench python3 varlen_tiles.py
"""
import argparse
import statistics

import torch
import triton.testing as tt

from flashcore import _attention
from attention_config import Shape, varlen_lengths

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--dims", default="64,128")
ap.add_argument("--dtypes", default="bf16,fp16")
args = ap.parse_args()
print(torch.cuda.get_device_name(), "torch", torch.__version__)


def flops(lengths, heads, d, causal):
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lengths)
    return 4 * heads * d * pairs


rows = []
for dt_name in args.dtypes.split(","):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dt_name]
    for d in [int(x) for x in args.dims.split(",")]:
        heads = 2048 // d
        for causal in (True, False):
            mixed = varlen_lengths(Shape("features", dt_name, d, causal, 4000, 64, heads, varlen="mixed"))
            for kind, lengths, tiles in (("equal4x4096", [4096] * 4, [None]),
                                         ("mixed", mixed, [None, "default", "long_rows"])):
                n = sum(lengths)
                cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
                q, k, v = (torch.randn(n, heads, d, device="cuda", dtype=dt) for _ in range(3))
                for tile in tiles:
                    def fn(q=q, k=k, v=v, cu=cu, m=max(lengths), causal=causal, d=d):
                        return _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal,
                                                         cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=m,
                                                         max_seqlen_k=m)
                    label = "%s d%d %s %s tile=%s" % (dt_name, d, "causal" if causal else "full", kind, tile)
                    rows.append((label, fn, tile, flops(lengths, heads, d, causal)))
times = {r[0]: [] for r in rows}
for _ in range(args.rounds):
    for label, fn, tile, _ in rows:
        _attention._set_forced_fwd_tile(tile)
        fn()
        times[label].append(tt.do_bench_cudagraph(fn, rep=40))
        _attention._set_forced_fwd_tile(None)
res = {}
for label, fn, tile, fl in rows:
    ms = statistics.median(times[label])
    res[label] = fl / ms / 1e9
    print("%-48s %8.3f ms %7.1f TFLOP/s (spread %.1f%%)" % (label, ms, res[label],
                                                           100 * (max(times[label]) / min(times[label]) - 1)))
for label in res:
    if "mixed" in label:
        eq = label.split(" mixed")[0] + " equal4x4096 tile=None"
        print("%-48s mixed/equal %.3f" % (label, res[label] / res[eq]))
