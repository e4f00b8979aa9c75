"""flashcore beside FlashAttention-4 (and cuDNN) forward, kernel-only, one process, same tensors
(tools/bench/row_timer.py; ab_table.py lines, labels fc / fa4 / cudnn). Rows: the paper grid (16k
tokens, hidden 2048) at --dims (d:dv for a pair), --seqlens, causal and full."""
import argparse

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import flash_attn.cute as fa4
import flashcore  # noqa: F401
import row_timer

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rounds", type=int, default=2)
ap.add_argument("--dims", default="96,192,256")
ap.add_argument("--seqlens", default="1024,4096,16384")
ap.add_argument("--nocudnn", action="store_true")
args = ap.parse_args()


def row(dtn, d, dv, s, causal):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
    b, h = 16384 // s, 2048 // d
    g = torch.Generator(device="cuda").manual_seed(s + d)
    q, k = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(2))
    v = torch.randn(b, s, h, dv, device="cuda", dtype=dt, generator=g)
    scale = d ** -0.5
    calls = [("fc", lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False))]
    try:  # FA4 refuses some shapes; the row then runs without it, and says so
        fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal)
        calls.append(("fa4", lambda: fa4.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal)))
    except Exception as e:  # noqa: BLE001
        print(f"fa4 refused {dtn} d{d}:{dv} S{s} causal={causal}: {type(e).__name__}: {str(e)[:200]}", flush=True)
    if not args.nocudnn and dv == d:
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale)
        calls.append(("cudnn", cudnn))
    name = f"{dtn} d{d}" + (f":{dv}" if dv != d else "") + f" S{s} {'causal' if causal else 'full'}"
    return row_timer.Row(name, row_timer.attention_flops(b, h, s, s, d, causal, dv), calls)


for dtn in args.dtypes.split(","):
    rows = []
    for x in args.dims.split(","):
        d, dv = (int(y) for y in x.split(":")) if ":" in x else (int(x), int(x))
        rows += [row(dtn, d, dv, int(s), c) for s in args.seqlens.split(",") for c in (False, True)]
    row_timer.time_rows(rows, args.rounds)
    del rows
    torch.cuda.empty_cache()
