# The sink's gradient path (sink_partial) under compute-sanitizer: sm90a d64 / d96 / d128 / d256,
# GQA, causal and full, deterministic, varlen.
import os, torch, flashcore
torch.manual_seed(0)
def bwd(*tensors, **kw):
    out = flashcore.flash_attn_func(*tensors, **kw)
    out.float().square().sum().backward()
    torch.cuda.synchronize()
dt = torch.bfloat16
for d in (64, 96, 128, 256):
    sink = torch.randn(8, device="cuda", requires_grad=True)
    q = torch.randn(2, 300, 8, d, device="cuda", dtype=dt, requires_grad=True)
    k, v = (torch.randn(2, 333, 2, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(2))
    for causal in (False, True):
        bwd(q, k, v, causal=causal, learnable_sink=sink)
        bwd(q, k, v, causal=causal, learnable_sink=sink, deterministic=True)
cu = torch.tensor([0, 70, 200, 333], device="cuda", dtype=torch.int32)
q, k, v = (torch.randn(333, 4, 128, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
sink = torch.randn(4, device="cuda", requires_grad=True)
out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 130, 130, causal=True, learnable_sink=sink)
out.float().square().sum().backward()
torch.cuda.synchronize()
print("sanitizer case done")
