"""Session 24: issue 13's 'varlen equal within 5% of the padded batch' rows re-measured: the dense
batch (B4 S4096, 2048 / d heads) against the same tokens packed (4 x 4096, cu_seqlens), forward
kernel-only (CUDA-graph replay), rows interleaved over --rounds, median and spread.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 varlen_padded.py
"""
import argparse
import statistics

import torch
import triton.testing as tt

from flashcore import _attention

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=5)
args = ap.parse_args()
print(torch.cuda.get_device_name(), "torch", torch.__version__)
rows = []
for dt_name, dt in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
    for d in (64, 128):
        h = 2048 // d
        for causal in (False, True):
            b, s = 4, 4096
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt) for _ in range(3))
            qp, kp, vp = (t.reshape(b * s, h, d) for t in (q, k, v))
            cu = torch.arange(0, b * s + 1, s, dtype=torch.int32, device="cuda")
            fl = 4 * b * h * d * (s * (s + 1) // 2 if causal else s * s)
            tag = "%s d%d %s" % (dt_name, d, "causal" if causal else "full")
            rows.append((tag + " dense", lambda q=q, k=k, v=v, c=causal, d=d: _attention.attention_core(
                q, k, v, softmax_scale=d ** -0.5, causal=c), fl))
            rows.append((tag + " packed", lambda q=qp, k=kp, v=vp, c=causal, d=d, cu=cu: _attention.attention_core(
                q, k, v, softmax_scale=d ** -0.5, causal=c, cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=4096,
                max_seqlen_k=4096), fl))
times = {r[0]: [] for r in rows}
for _ in range(args.rounds):
    for label, fn, _ in rows:
        fn()
        times[label].append(tt.do_bench_cudagraph(fn, rep=30))
res = {}
for label, fn, fl in rows:
    ms = statistics.median(times[label])
    res[label] = fl / ms / 1e9
    print("%-28s %7.1f TFLOP/s (spread %.1f%%)" % (label, res[label], 100 * (max(times[label]) / min(times[label]) - 1)))
for label in res:
    if label.endswith(" packed"):
        base = label[: -len(" packed")]
        print("%-22s packed / dense %.3f" % (base, res[label] / res[base + " dense"]))
