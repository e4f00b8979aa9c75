"""Pack-GQA on / off on one flashcore build, in one process on the same tensors: kernel-only forward
(triton.testing.do_bench_cudagraph), rounds alternating the order of the two variants. Prints
tools/bench/ab_table.py's lines, labels pack_rN / unpack_rN (ab_table.py keeps each label's best).
--fa4 adds FlashAttention-4 with its default (packed) and pack_gqa=False, labels fa4_rN / fa4nopack_rN."""
import argparse

import torch
import triton.testing as tt

import flashcore
from flashcore import _attention

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--rep", type=float, default=40.0)
ap.add_argument("--head_dim", type=int, default=128)
ap.add_argument("--fa4", action="store_true")
ap.add_argument("--rows", default="all", help="all, or models")
args = ap.parse_args()
d = args.head_dim

# (name, batch, seqlen, q heads, k/v heads, causal)
ROWS = [("llama3", 2, 8192, 32, 8, True), ("qwen2.5", 2, 8192, 28, 4, True)]
if args.rows == "all":
    for grp in (4, 8):
        for s in (1024, 4096, 16384):
            for causal in (False, True):
                ROWS.append((f"g{grp}", 16384 // s, s, 16, 16 // grp, causal))
    ROWS += [("small", 1, 512, 32, 8, True), ("prompt", 1, 2048, 32, 8, True), ("mha", 4, 4096, 16, 16, True)]

fa4 = None
if args.fa4:
    import flash_attn.cute as fa4


def flops(b, s, hq, causal):
    pairs = b * hq * (s * (s + 1) // 2 if causal else s * s)
    return 4 * pairs * d


for dtn in args.dtypes.split(","):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
    data = []
    for name, b, s, hq, hk, causal in ROWS:
        g = torch.Generator(device="cuda").manual_seed(b * s + hq + hk + causal)
        q = torch.randn(b, s, hq, d, device="cuda", dtype=dt, generator=g)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=dt, generator=g)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=dt, generator=g)
        row = f"{dtn} d{d} {name} B{b} S{s} H{hq}/{hk} {'causal' if causal else 'full'}"
        data.append((row, q, k, v, causal, flops(b, s, hq, causal)))
    # One check per row: packed and unpacked outputs bitwise equal.
    for row, q, k, v, causal, _ in data:
        _attention._set_pack_gqa(False)
        ou = flashcore.flash_attn_func(q, k, v, causal=causal)
        _attention._set_pack_gqa(True)
        op = flashcore.flash_attn_func(q, k, v, causal=causal)
        if not torch.equal(ou, op):
            print(f"MISMATCH {row}: max |diff| {(ou.float() - op.float()).abs().max().item():.3g}", flush=True)
    scale = d ** -0.5
    for r in range(1, args.rounds + 1):
        for row, q, k, v, causal, f in data:
            variants = ["pack", "unpack"] + (["fa4", "fa4nopack"] if fa4 else [])
            if r % 2 == 0:
                variants.reverse()
            for var in variants:
                if var in ("pack", "unpack"):
                    _attention._set_pack_gqa(var == "pack")
                    fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False)
                else:
                    kw = {} if var == "fa4" else {"pack_gqa": False}
                    fn = lambda: fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal, **kw)
                ms = tt.do_bench_cudagraph(fn, rep=args.rep)
                print(f"{var}_r{r} {row} {ms:.4f} ms {f / ms / 1e9:.1f} TFLOP/s", flush=True)
    _attention._set_pack_gqa(True)
