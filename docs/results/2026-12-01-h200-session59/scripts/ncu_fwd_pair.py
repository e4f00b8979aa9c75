"""One forward call of flashcore and one of FlashAttention-4 on the same tensors, each inside its
own cudaProfilerStart / Stop range, after warm-up calls (FA4 JIT-compiles on its first), for
`ncu --profile-from-start off`. (Session 58's script with a d64 causal row added.) Rows: --rows, names from ROWS. Prints each call's kernel-only time
(triton.testing.do_bench_cudagraph) first, outside the profiled ranges."""
import argparse

import torch
import triton.testing as tt

import flash_attn.cute as fa4
import flashcore  # noqa: F401

ROWS = {  # name: (batch, seqlen, q heads, k/v heads, head dim, causal)
    "d128_full_s16k": (1, 16384, 16, 16, 128, False),
    "llama3_causal_s8k": (2, 8192, 32, 8, 128, True),
    "d64_full_s16k": (1, 16384, 32, 32, 64, False),
    "d64_causal_s16k": (1, 16384, 32, 32, 64, True),
}
ap = argparse.ArgumentParser()
ap.add_argument("--rows", default="d128_full_s16k,llama3_causal_s8k")
args = ap.parse_args()
for name in args.rows.split(","):
    b, s, hq, hk, d, causal = ROWS[name]
    g = torch.Generator(device="cuda").manual_seed(s + d)
    q = torch.randn(b, s, hq, d, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=g)
    scale = d ** -0.5
    calls = {
        "flashcore": lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False),
        "fa4": lambda: fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal),
    }
    pairs = b * hq * (s * (s + 1) // 2 if causal else s * s)
    for who, fn in calls.items():
        fn()
        torch.cuda.synchronize()
        ms = tt.do_bench_cudagraph(fn, rep=50)
        print(f"{name} {who}: {ms * 1e3:.1f} us, {4 * pairs * d / ms / 1e9:.1f} TFLOP/s", flush=True)
    for who, fn in calls.items():
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        fn()
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
