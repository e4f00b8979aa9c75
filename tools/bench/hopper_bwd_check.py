"""GPU-side check of the Hopper (wgmma/TMA) backward, kernels/hopper/bwd_kernel.cuh.

Run with FLASHCORE_BWD_HOPPER=1 and flashcore importable (e.g. PYTHONPATH=<bundle>/runfiles/_main/py);
tools/bench/hopper_bwd_gpu_run.sh does both. In one process, for a few shapes (odd lengths,
seqlen_q != seqlen_k both ways, causal and not, d64/d128, fp16/bf16) it compares against the
float64 reference (flashcore.reference.attention_reference_grads):
  * the default backward (deterministic=False: the wgmma kernel when FLASHCORE_BWD_HOPPER=1),
  * the deterministic backward (always the mma.sync kernel),
and prints both errors per gradient; it fails if the wgmma error exceeds 2x the mma.sync one plus
a small floor, if anything is NaN, or if torch.profiler does not show the
flashcore::hopper::bwd_kernel running (so a silent fallback cannot pass).
"""

import math
import os
import sys

import torch

import flashcore
from flashcore.reference import attention_reference_grads

SHAPES = [  # (batch, seqlen_q, seqlen_k, heads, head_dim, causal)
    (2, 1, 1, 3, 64, False),
    (1, 77, 333, 2, 128, True),
    (1, 333, 77, 2, 64, True),
    (2, 257, 257, 4, 64, False),
    (2, 257, 511, 4, 128, False),
    (1, 1000, 1000, 2, 128, True),
    (1, 640, 130, 2, 128, False),
    (1, 130, 640, 2, 64, True),
]


def grads(q, k, v, dout, causal, deterministic):
    q, k, v = (t.detach().requires_grad_(True) for t in (q, k, v))
    out = flashcore.attention(q, k, v, causal=causal, deterministic=deterministic)
    out.backward(dout)
    return q.grad, k.grad, v.grad


def main():
    if os.environ.get("FLASHCORE_BWD_HOPPER") != "1":
        print("hopper_bwd_check: set FLASHCORE_BWD_HOPPER=1")
        return 2
    print(torch.cuda.get_device_name(), "flashcore from", flashcore.__file__)
    failures = 0
    torch.manual_seed(0)
    for dtype in (torch.bfloat16, torch.float16):
        for b, sq, sk, h, d, causal in SHAPES:
            q = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
            k = torch.randn(b, sk, h, d, device="cuda", dtype=dtype)
            v = torch.randn(b, sk, h, d, device="cuda", dtype=dtype)
            dout = torch.randn(b, sq, h, d, device="cuda", dtype=dtype)
            ref = attention_reference_grads(q, k, v, dout, causal=causal)
            new = grads(q, k, v, dout, causal, False)
            old = grads(q, k, v, dout, causal, True)
            line = []
            for name, r, n, o in zip(("dq", "dk", "dv"), ref, new, old):
                err_new = (n.double() - r).abs().max().item()
                err_old = (o.double() - r).abs().max().item()
                scale = max(r.abs().max().item(), 1e-6)
                bad = not math.isfinite(err_new) or err_new > 2 * err_old + 1e-3 * scale
                failures += bad
                line.append("%s %.2e (mma.sync %.2e)%s" % (name, err_new, err_old, " FAIL" if bad else ""))
            print("%s b%d sq%d sk%d h%d d%d %s: %s" % (str(dtype)[6:], b, sq, sk, h, d,
                                                      "causal" if causal else "full", "  ".join(line)))
    # Which kernel ran: the profiler's kernel names for one default backward.
    q = torch.randn(1, 512, 2, 128, device="cuda", dtype=torch.bfloat16)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        grads(q, q, q, torch.randn_like(q), True, False)
        torch.cuda.synchronize()
    names = sorted({e.name for e in prof.events() if "bwd" in e.name})
    print("backward kernels:", names)
    if not any("hopper" in n and "bwd_kernel" in n for n in names):
        print("FAIL: flashcore::hopper::bwd_kernel did not run")
        failures += 1
    print("hopper_bwd_check: %s (%d failures)" % ("PASS" if failures == 0 else "FAIL", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
