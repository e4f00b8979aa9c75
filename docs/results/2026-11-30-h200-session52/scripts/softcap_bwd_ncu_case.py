"""Session 52: one bf16 d64 forward + backward (B 4, S 4096, H 16, causal) for ncu, softcap 30 or
none (argv[1]); two iterations, ncu profiles the second backward main kernel."""
import sys

import torch

import flashcore

softcap = float(sys.argv[1])
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(4, 4096, 16, 64, device="cuda", generator=g).to(torch.bfloat16).requires_grad_()
           for _ in range(3))
dout = torch.randn(4, 4096, 16, 64, device="cuda", generator=g).to(torch.bfloat16)
for _ in range(2):
    out = flashcore.flash_attn_func(q, k, v, causal=True, softcap=softcap)
    torch.autograd.grad(out, (q, k, v), dout)
torch.cuda.synchronize()
