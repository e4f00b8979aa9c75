"""Session 52: one bf16 d64 forward call (B 4, S 4096, H 16, causal) for ncu, softcap 30 or none
(argv[1]); two calls, ncu profiles the second."""
import sys

import torch

import flashcore

softcap = float(sys.argv[1])
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(4, 4096, 16, 64, device="cuda", generator=g).to(torch.bfloat16) for _ in range(3))
for _ in range(2):
    flashcore.flash_attn_func(q, k, v, causal=True, softcap=softcap)
torch.cuda.synchronize()
