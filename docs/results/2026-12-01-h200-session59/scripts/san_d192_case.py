"""compute-sanitizer case for head dim 192's plain-call mainloop copy (fwd_kernel.cuh
kPlainOwnLoop): every tile 192 has (forced: default, long_rows -- unmasked only, short_rows --
causal), causal and full, both dtypes, q rows != k rows, GQA 8 / 2, at v head dims 192 and 128 (the
narrow copy: multi-head latent attention's pair); plus a softcap and a negative scale once each (the
general copy). Small enough for racecheck. Unsanitized: outputs finite and within 2e-2 of the
float32 reference. (Its first run, call_checks, ran the pair only on the tile each call picks.)"""
import torch

import flashcore
from flashcore import _attention

g = torch.Generator(device="cuda").manual_seed(59)
worst = 0.0
for dtype in (torch.bfloat16, torch.float16):
    for causal in (False, True):
        for dv in (192, 128):
            q = torch.randn(1, 300, 8, 192, device="cuda", dtype=dtype, generator=g)
            k = torch.randn(1, 420, 2, 192, device="cuda", dtype=dtype, generator=g)
            v = torch.randn(1, 420, 2, dv, device="cuda", dtype=dtype, generator=g)
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float().transpose(1, 2), k.float().repeat_interleave(4, 2).transpose(1, 2),
                v.float().repeat_interleave(4, 2).transpose(1, 2),
                attn_mask=torch.ones(300, 420, dtype=torch.bool, device="cuda").tril(120) if causal else None
            ).transpose(1, 2)
            tiles = ["default", "short_rows" if causal else "long_rows"]
            for tile in tiles:
                _attention._set_forced_fwd_tile(tile)
                out = flashcore.flash_attn_func(q, k, v, causal=causal)
                _attention._set_forced_fwd_tile(None)
                assert torch.isfinite(out).all(), (dtype, causal, dv, tile)
                worst = max(worst, (out.float() - ref).abs().max().item())
            if dv == 192:
                flashcore.flash_attn_func(q, k, v, causal=causal, softcap=20.0)  # the general copy
                flashcore.flash_attn_func(q, k, v, causal=causal, softmax_scale=-0.1)
torch.cuda.synchronize()
print("d192 sanitizer case: worst |out - ref| %.3g" % worst)
assert worst < 2e-2, worst
