# The sm90a forward with the max slack under compute-sanitizer: every head dim class, fp16 and
# bf16, causal and full, scores whose running max moves along the keys (a ramp: alpha != 1 in some
# warps, 1 in others, so the rescale vote splits), 6 key blocks; GQA + window + softcap + sink; and
# the d64 long-rows tile (4096 rows, 8 heads: more tiles than SMs).
import torch, flashcore
torch.manual_seed(0)
for dt in (torch.bfloat16, torch.float16):
    for d in (64, 96, 128, 192, 256):
        for causal in (False, True):
            q, k, v = (torch.randn(1, 700, 2, d, device="cuda", dtype=dt) for _ in range(3))
            q[..., 0] = 4
            k[..., 0] = torch.linspace(0, 60, 700, device="cuda").to(dt)[None, :, None]
            flashcore.attention(q, k, v, causal=causal)
            kv = torch.randn(1, 700, 1, d, device="cuda", dtype=dt)
            flashcore.flash_attn_func(q, kv, kv, causal=causal, window_size=(100, 5), softcap=20.0,
                                      learnable_sink=torch.randn(2, device="cuda"))
            torch.cuda.synchronize()
for causal in (False, True):
    q, k, v = (torch.randn(1, 4096, 8, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    flashcore.attention(q, k, v, causal=causal)
    torch.cuda.synchronize()
print("sanitizer case done")
