# The d64 long-rows forward (192 x 128, three consumers) under compute-sanitizer: 8 heads x 22 tiles
# (> 132 SMs: CTAs walk two tiles, so pingpong turns run on across tiles), causal and full, plus the
# sm90a backward at d64 / d128 (shared-space addressing), small shapes.
import torch, flashcore
torch.manual_seed(0)
for causal in (False, True):
    q, k, v = (torch.randn(1, 4096, 8, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = flashcore.attention(q, k, v, causal=causal)
    torch.cuda.synchronize()
for d in (64, 128):
    q, k, v = (torch.randn(2, 333, 4, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    out = flashcore.attention(q, k, v, causal=True)
    out.backward(torch.randn_like(out))
    torch.cuda.synchronize()
print("sanitizer case done")
