"""compute-sanitizer case for the forward's long-rows tiles (forced; 192 x 128 at head dim 64,
192 x 96 at 96), whose bf16 kernels this session split into a bounded-softcap mainloop copy and
the rest: both dtypes, full and causal, softcap 0 / 30 (bf16: the bounded step) / 60 (the running
max), MHA and GQA (the pack-GQA kernels), q rows != k rows both ways; every output finite."""
import torch

import flashcore
from flashcore import _attention

_attention._set_forced_fwd_tile("long_rows")
g = torch.Generator(device="cuda").manual_seed(55)
n = 0
for dtype in (torch.bfloat16, torch.float16):
    for d in (64, 96):
        for causal in (False, True):
            for softcap in (0.0, 30.0, 60.0):
                for heads_kv in (4, 1):
                    for sq, sk in ((333, 300), (200, 417)):
                        q = torch.randn(1, sq, 4, d, device="cuda", dtype=dtype, generator=g)
                        k, v = (torch.randn(1, sk, heads_kv, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
                        out = flashcore.flash_attn_func(q, k, v, causal=causal, softcap=softcap)
                        torch.cuda.synchronize()
                        assert torch.isfinite(out).all(), (dtype, d, causal, softcap, heads_kv, sq, sk)
                        n += 1
print("long-rows sanitizer case: %d calls, outputs finite" % n)
