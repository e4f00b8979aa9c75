"""Session 63: the packed causal calls of san_varlen_case.py (about 40 sequences x 7 / 8 heads,
walks that pair tiles and pair odd sequences' middle blocks), flashcore's forward only -- no torch
reference, whose kernels crashed under racecheck (calls 2, 3, 7) -- for compute-sanitizer racecheck.
Correctness of the same calls: san_varlen_case.py (memcheck) and the GPU suites."""
import random

import torch

import flashcore

n = 0
for head_dim in (64, 96, 128):
    for heads in (7, 8):
        for dtype in (torch.bfloat16, torch.float16):
            rng = random.Random(n)
            q = [rng.choice((0, 1, rng.randrange(2, 1200))) if i % 7 == 0 else rng.randrange(2, 1200) for i in range(40)]
            cu = torch.tensor([0] + list(torch.tensor(q).cumsum(0)), device="cuda", dtype=torch.int32)
            t = sum(q)
            x = [torch.randn(t, heads, head_dim, device="cuda", dtype=dtype) for _ in range(3)]
            out = flashcore.flash_attn_varlen_func(*x, cu, cu, max(q), max(q), causal=True)
            torch.cuda.synchronize()
            assert torch.isfinite(out).all()
            n += 1
print("race_varlen_fwd: %d calls" % n)
