"""Session 52: the bf16 d64 forward's bounded-softcap step with part of its exp2s on the FMA pipe
(exp2_poly) under compute-sanitizer (memcheck, racecheck): softcap 30 and 50, causal and not, a
window, a packed batch, each tile the shapes pick (few tiles, default, long rows)."""
import torch

import flashcore

g = torch.Generator(device="cuda").manual_seed(0)


def r(*shape):
    return torch.randn(*shape, device="cuda", generator=g).to(torch.bfloat16)


for softcap in (30.0, 50.0):
    for b, s, h in ((1, 200, 2), (2, 1100, 8), (1, 3100, 4), (2, 4096, 16)):
        q, k, v = r(b, s, h, 64), r(b, s, h, 64), r(b, s, h, 64)
        for causal in (False, True):
            flashcore.flash_attn_func(q, k, v, causal=causal, softcap=softcap)
        flashcore.flash_attn_func(q, k, v, causal=True, window_size=(128, 0), softcap=softcap)
    cu = torch.tensor([0, 100, 900, 1000], dtype=torch.int32, device="cuda")
    q, k, v = r(1000, 4, 64), r(1000, 4, 64), r(1000, 4, 64)
    flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 800, 800, causal=True, softcap=softcap)
torch.cuda.synchronize()
print("san_poly done")
