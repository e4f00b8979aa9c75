"""Session 51: the sm90a forward's bounded-softcap softmax step under compute-sanitizer (memcheck,
racecheck): bf16 softcap 50 (calls 7 and 9 ran it with 30) at head dims 64 / 96 / 128 / 192 / 256,
causal and not, a window, a packed batch, each tile the shapes pick (few tiles, default, long
rows)."""
import torch

import flashcore

g = torch.Generator(device="cuda").manual_seed(0)


def r(*shape):
    return torch.randn(*shape, device="cuda", generator=g).to(torch.bfloat16)


for d in (64, 96, 128, 192, 256):
    for b, s, h in ((1, 200, 2), (2, 1100, 8), (1, 3100, 4)):
        q, k, v = r(b, s, h, d), r(b, s, h, d), r(b, s, h, d)
        for causal in (False, True):
            flashcore.flash_attn_func(q, k, v, causal=causal, softcap=50.0)
        flashcore.flash_attn_func(q, k, v, causal=True, window_size=(128, 0), softcap=50.0)
    cu = torch.tensor([0, 100, 900, 1000], dtype=torch.int32, device="cuda")
    q, k, v = r(1000, 4, d), r(1000, 4, d), r(1000, 4, d)
    flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 800, 800, causal=True, softcap=50.0)
torch.cuda.synchronize()
print("san_softcap done")
