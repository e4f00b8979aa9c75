"""The Hopper backward's CTA launch order (BwdBlockOrder, kernels/hopper/bwd_kernel.cuh), timed:
GQA 32/8 against MHA 32 (issue 13's GQA bar: the backward within 3% of MHA's TFLOP/s) at d64
and d128, causal S 4k and 16k and full S 4k, 16k tokens per batch, bf16. Kernel-only: the
backward op (preprocess, main kernel, dQ convert) captured in a CUDA graph and replayed
(triton.testing.do_bench_cudagraph). TFLOP/s of the FLOPs needed: 2.5 x the forward's
4 * B * H * pairs * d (pairs: half + diagonal causal).

    PYTHONPATH=<bundle>/runfiles/_main/py python3 tools/bench/bwd_order.py --label NAME

Prints one line per row: label, row, ms, TFLOP/s; compare builds or launch orders by running it
once per variant in alternating processes.
"""
import argparse

import torch
import triton.testing as tt

import flashcore  # noqa: F401  (registers torch.ops.flashcore)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", default="run")
    ap.add_argument("--rep", type=float, default=100.0)
    args = ap.parse_args()
    for d in (128, 64):
        for s, causal in ((4096, True), (16384, True), (4096, False)):
            for hk in (32, 8):
                b, h = 16384 // s, 32
                g = torch.Generator(device="cuda").manual_seed(s + hk + d)
                q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g)
                k, v = (torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
                dout = torch.randn_like(q)
                scale = d ** -0.5
                out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale)[:2]

                def bwd(q=q, k=k, v=v, out=out, lse=lse, dout=dout, causal=causal, scale=scale):
                    return torch.ops.flashcore.attention_bwd(dout, q, k, v, out, lse, None, causal, scale, False)

                ms = tt.do_bench_cudagraph(bwd, rep=args.rep)
                pairs = s * (s + 1) / 2 if causal else s * s
                tflops = 2.5 * 4 * b * h * pairs * d / ms / 1e9
                row = "d%d %s S%d %s" % (d, "MHA" if hk == h else "GQA%d/%d" % (h, hk), s, "causal" if causal else "full")
                print("%s | %-26s | %8.3f ms | %6.1f TFLOP/s" % (args.label, row, ms, tflops), flush=True)


if __name__ == "__main__":
    main()
