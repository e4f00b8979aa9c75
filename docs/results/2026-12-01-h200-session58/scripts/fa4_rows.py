"""flashcore and FlashAttention-4 forward, kernel-only (triton.testing.do_bench_cudagraph), in one
process on the same tensors, rounds alternating the order; tools/bench/ab_table.py lines, labels
fc_rN / fa4_rN. Rows: the paper grid at d64 / d128 (16k tokens, hidden 2048; S 1024 / 4096 /
16384, causal and full), Llama 3 8B's and Qwen 2.5 7B's layers (S 8192 B2)."""
import argparse

import torch
import triton.testing as tt

import flash_attn.cute as fa4
import flashcore  # noqa: F401

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()
rows = []
for d in (64, 128):
    for s in (1024, 4096, 16384):
        for causal in (False, True):
            rows.append((f"d{d} S{s} {'causal' if causal else 'full'}", 16384 // s, s, 2048 // d, 2048 // d, d, causal))
rows += [("llama3 d128 S8192 32/8 causal", 2, 8192, 32, 8, 128, True),
         ("qwen2.5 d128 S8192 28/4 causal", 2, 8192, 28, 4, 128, True)]
for dtn in args.dtypes.split(","):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
    data = []
    for name, b, s, hq, hk, d, causal in rows:
        g = torch.Generator(device="cuda").manual_seed(s + d + hq)
        q = torch.randn(b, s, hq, d, device="cuda", dtype=dt, generator=g)
        k, v = (torch.randn(b, s, hk, d, device="cuda", dtype=dt, generator=g) for _ in range(2))
        pairs = b * hq * (s * (s + 1) // 2 if causal else s * s)
        data.append((f"{dtn} {name}", q, k, v, d, causal, 4 * pairs * d))
    for r in range(1, args.rounds + 1):
        for row, q, k, v, d, causal, f in data:
            scale = d ** -0.5
            calls = [("fc", lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False)),
                     ("fa4", lambda: fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal))]
            if r % 2 == 0:
                calls.reverse()
            for who, fn in calls:
                ms = tt.do_bench_cudagraph(fn, rep=40)
                print(f"{who}_r{r} {row} {ms:.4f} ms {f / ms / 1e9:.1f} TFLOP/s", flush=True)
