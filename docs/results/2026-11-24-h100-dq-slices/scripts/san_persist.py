# The persistent sm90a backward under compute-sanitizer: more tiles than SMs (136-144 tiles on 132
# SMs, so CTAs walk two tiles and the ring, lse / D, dS^T, dQ buffers and kv_full / kv_empty run
# across a tile boundary): d64 / d128 / d96 / d256, causal and full, plain, deterministic, GQA +
# window + softcap, and a packed varlen batch.
import torch, flashcore
torch.manual_seed(0)
def bwd(*tensors, **kw):
    out = flashcore.flash_attn_func(*tensors, **kw)
    out.float().square().sum().backward()
    torch.cuda.synchronize()
dt = torch.bfloat16
for d, s, h in ((128, 512, 34), (64, 512, 34), (96, 512, 34), (256, 300, 29)):
    for causal in (False, True):
        q, k, v = (torch.randn(1, s, h, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        bwd(q, k, v, causal=causal)
        bwd(q, k, v, causal=causal, deterministic=True)
    kv = torch.randn(1, 512, 2, d, device="cuda", dtype=dt, requires_grad=True)
    q = torch.randn(1, 512, 8, d, device="cuda", dtype=dt, requires_grad=True)
    bwd(q, kv, kv, causal=True, window_size=(100, 0), softcap=20.0)
cu = torch.tensor([0, 70, 200, 333] + [333 + 130 * i for i in range(1, 40)], device="cuda", dtype=torch.int32)
n = int(cu[-1])
q, k, v = (torch.randn(n, 4, 128, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 133, 133, causal=True)
out.float().square().sum().backward()
torch.cuda.synchronize()
print("sanitizer case done")
