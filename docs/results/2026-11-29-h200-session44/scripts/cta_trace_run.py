"""Runs flashcore's eager backward at paper-grid rows with FLASHCORE_BWD_CTA_TRACE_FILE set for one
call (after warm-up calls), one trace file per row: OUTDIR/trace_<dtype>_d<d>_<causal|full>_S<s>.bin.
Usage: cta_trace_run.py OUTDIR dtype:d:causal|full:S ..."""
import os
import sys

import torch

import flashcore

TOTAL_TOKENS, HIDDEN = 16384, 2048


def main(argv):
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for spec in argv[2:]:
        dt, d, c, s = spec.split(":")
        d, s = int(d), int(s)
        b, h = TOTAL_TOKENS // s, HIDDEN // d
        dtype = torch.bfloat16 if dt == "bf16" else torch.float16
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
        o = flashcore.attention(q, k, v, causal=c == "causal")
        do = torch.randn_like(o)
        for _ in range(3):
            torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        torch.cuda.synchronize()
        path = f"{out}/trace_{dt}_d{d}_{c}_S{s}.bin"
        os.environ["FLASHCORE_BWD_CTA_TRACE_FILE"] = path
        torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
        torch.cuda.synchronize()
        del os.environ["FLASHCORE_BWD_CTA_TRACE_FILE"]
        print("traced", spec, os.path.getsize(path), flush=True)


if __name__ == "__main__":
    main(sys.argv)
