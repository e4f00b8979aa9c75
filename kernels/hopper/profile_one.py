"""One flashcore call at one shape, for Nsight Compute (ncu) to read. Runs on the GPU machine
against an extension built with --config=gpu_target:

    PYTHONPATH=<bundle>/runfiles/_main/py ncu --clock-control none -k regex:hopper::fwd_kernel -c 1 \\
        --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \\
        python3 kernels/hopper/profile_one.py --dtype bf16 --head_dim 128 --seqlen 4096 --causal

For the softcap forward's instruction mix (issue 13; docs/results/2026-11-23-h100-integ.md asks
whether issue slots, not MUFU, bound it): --softcap 30 beside the same shape without it, with
--section InstructionStats --section ComputeWorkloadAnalysis --section WarpStateStats.

Shapes follow the paper grid (16k tokens, hidden 2048: batch = 16384 / seqlen, heads =
2048 / head_dim) unless --batch / --heads say otherwise. --mode bwd runs the forward, then one
backward (ncu's -k picks the kernel). Warm-up calls come first so that ncu's -c 1 after a
--launch-skip (or the kernel filter) sees a steady-state launch, not the first one.
"""

from __future__ import annotations

import argparse

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", choices=["fp16", "bf16"], default="bf16")
    ap.add_argument("--head_dim", type=int, default=128, help="any head dim flashcore takes (it checks)")
    ap.add_argument("--seqlen", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=0, help="default: 16384 / seqlen")
    ap.add_argument("--heads", type=int, default=0, help="default: 2048 / head_dim")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--softcap", type=float, default=0.0, help="e.g. 30: the softcap mainloop's instruction mix")
    ap.add_argument("--window", type=int, default=-1, help="sliding window's left extent (right: 0 with --causal)")
    ap.add_argument("--mode", choices=["fwd", "bwd"], default="fwd")
    ap.add_argument("--deterministic", action="store_true")
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()

    import flashcore

    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    batch = args.batch or max(1, 16384 // args.seqlen)
    heads = args.heads or 2048 // args.head_dim
    shape = (batch, args.seqlen, heads, args.head_dim)
    torch.manual_seed(0)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype, requires_grad=args.mode == "bwd") for _ in range(3))
    dout = torch.randn(shape, device="cuda", dtype=dtype)
    for _ in range(args.warmup + 1):
        out = flashcore.attention(q, k, v, causal=args.causal, deterministic=args.deterministic,
                                  softcap=args.softcap, window_size=(args.window, -1))
        if args.mode == "bwd":
            torch.autograd.grad(out, (q, k, v), dout)
    torch.cuda.synchronize()
    print("profiled %s %s B%d S%d H%d D%d causal=%s deterministic=%s softcap=%g window=%d" %
          (args.mode, args.dtype, batch, args.seqlen, heads, args.head_dim, args.causal, args.deterministic,
           args.softcap, args.window))


if __name__ == "__main__":
    main()
