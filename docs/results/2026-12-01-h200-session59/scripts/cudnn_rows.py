"""flashcore against torch SDPA's cuDNN backend, forward kernel-only, one process, same tensors
(tools/bench/row_timer.py: CUDA-graph replay, the order rotated each round; ab_table.py lines,
labels fc_rN / cudnn_rN). Rows: the paper grid (16k tokens, hidden 2048) at --dims, --seqlens,
causal and full -- issue 15's rows against cuDNN. Session 58's script of the same name with its
loop replaced by row_timer."""
import argparse

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashcore  # noqa: F401
import row_timer

ap = argparse.ArgumentParser()
ap.add_argument("--dtypes", default="bf16,fp16")
ap.add_argument("--rounds", type=int, default=2)
ap.add_argument("--dims", default="96,192,256")
ap.add_argument("--seqlens", default="1024,4096")
args = ap.parse_args()


def row(dtn, d, s, causal):
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtn]
    b, h = 16384 // s, 2048 // d
    g = torch.Generator(device="cuda").manual_seed(s + d)
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    scale = d ** -0.5

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=causal, scale=scale)

    return row_timer.Row(f"{dtn} d{d} S{s} {'causal' if causal else 'full'}",
                         row_timer.attention_flops(b, h, s, s, d, causal),
                         [("fc", lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, False)),
                          ("cudnn", cudnn)])


for dtn in args.dtypes.split(","):
    rows = [row(dtn, int(d), int(s), causal) for d in args.dims.split(",") for s in args.seqlens.split(",")
            for causal in (False, True)]
    row_timer.time_rows(rows, args.rounds)
    del rows
    torch.cuda.empty_cache()
