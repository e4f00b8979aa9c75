"""compute-sanitizer case for head dim 256's narrow copy (200 and 208 on the 256 kernel) with the
plain-call copy: 256's one tile, causal and full, both dtypes, q rows != k rows, GQA 8 / 2, head dims
200 and 208; a softcap and a negative scale once each (the general copy). Unsanitized: outputs finite
and within 2e-2 of the float32 reference."""
import torch

import flashcore
from flashcore import _attention

g = torch.Generator(device="cuda").manual_seed(200)
worst = 0.0
for dtype in (torch.bfloat16, torch.float16):
    for causal in (False, True):
        for d in (200, 208):
            q = torch.randn(1, 300, 8, d, device="cuda", dtype=dtype, generator=g)
            k, v = (torch.randn(1, 420, 2, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float().transpose(1, 2), k.float().repeat_interleave(4, 2).transpose(1, 2),
                v.float().repeat_interleave(4, 2).transpose(1, 2),
                attn_mask=torch.ones(300, 420, dtype=torch.bool, device="cuda").tril(120) if causal else None
            ).transpose(1, 2)
            for tile in ("default",):
                _attention._set_forced_fwd_tile(tile)
                out = flashcore.flash_attn_func(q, k, v, causal=causal)
                _attention._set_forced_fwd_tile(None)
                assert torch.isfinite(out).all(), (dtype, causal, d, tile)
                worst = max(worst, (out.float() - ref).abs().max().item())
            flashcore.flash_attn_func(q, k, v, causal=causal, softcap=20.0)  # the general copy
            flashcore.flash_attn_func(q, k, v, causal=causal, softmax_scale=-0.1)
torch.cuda.synchronize()
print("d200 sanitizer case: worst |out - ref| %.3g" % worst)
assert worst < 2e-2, worst
