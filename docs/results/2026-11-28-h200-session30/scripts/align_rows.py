"""Session 30: the same grid (B4 H10 S4096, bf16, full) at head dims whose rows are on 32-byte L2
sectors (192, 208, 256: 384 / 416 / 512 bytes) or off them (200, 248: 400 / 496 bytes). 200 and
208 both run the 256 kernel's narrow mainloop (Q K^T and P V over 208 columns), so their GEMM work
is equal: a time difference between them is the rows' alignment. Kernel-only, CUDA-graph replay.
Usage: align_rows.py [--ncu D] (one call of D only, for ncu)."""
import sys

import torch
import triton.testing as tt
import flashcore  # noqa: F401

b, h, s = 4, 10, 4096
dims = [int(sys.argv[2])] if len(sys.argv) > 2 and sys.argv[1] == "--ncu" else [192, 200, 208, 216, 248, 256]
for d in dims:
    g = torch.Generator(device="cuda").manual_seed(d)
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, False, d ** -0.5)
    if len(dims) == 1:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        print("ok", d)
        break
    ms = tt.do_bench_cudagraph(fn, rep=60)
    print(f"align d{d} rows {2 * d} B {'on' if 2 * d % 32 == 0 else 'off'} sectors {ms * 1e3:.1f} us", flush=True)
