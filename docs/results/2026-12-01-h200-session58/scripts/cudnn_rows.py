"""flashcore against torch SDPA's cuDNN backend, forward kernel-only (triton.testing.do_bench_cudagraph),
one process, same tensors, rounds alternating the order; tools/bench/ab_table.py lines, labels
fc_rN / cudnn_rN. Rows: the paper grid (16k tokens, hidden 2048) at head dims 96, 192 and 256,
S 1024 and 4096, causal and full (issue 15's rows against cuDNN)."""
import argparse

import torch
import triton.testing as tt
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashcore  # noqa: F401

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--dims", default="96,192,256")
ap.add_argument("--seqlens", default="1024,4096")
args = ap.parse_args()
for dtn in args.dtypes.split(","):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
    data = []
    for d in (int(x) for x in args.dims.split(",")):
        for s in (int(x) for x in args.seqlens.split(",")):
            for causal in (False, True):
                b, h = 16384 // s, 2048 // d
                g = torch.Generator(device="cuda").manual_seed(s + d)
                q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
                qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
                pairs = b * h * (s * (s + 1) // 2 if causal else s * s)
                data.append((f"{dtn} d{d} S{s} {'causal' if causal else 'full'}", q, k, v, qt, kt, vt, d, causal,
                             4 * pairs * d))
    for r in range(1, args.rounds + 1):
        for row, q, k, v, qt, kt, vt, d, causal, f in data:
            scale = d ** -0.5

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale)
            calls = [("fc", lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False)), ("cudnn", cudnn)]
            if r % 2 == 0:
                calls.reverse()
            for who, fn in calls:
                ms = tt.do_bench_cudagraph(fn, rep=40)
                print(f"{who}_r{r} {row} {ms:.4f} ms {f / ms / 1e9:.1f} TFLOP/s", flush=True)
