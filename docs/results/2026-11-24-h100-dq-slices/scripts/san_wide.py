# The sm90a backward of head dims 192 and 256 (bwd_wide_kernel.cuh) under compute-sanitizer: fp16
# and bf16, causal and full, plain, deterministic, GQA + window + softcap, the (192, 128) pair, and
# a packed varlen batch whose sequences end inside key and query blocks.
import torch, flashcore
torch.manual_seed(0)
def bwd(*tensors, **kw):
    out = flashcore.flash_attn_func(*tensors, **kw)
    out.float().square().sum().backward()
    torch.cuda.synchronize()
for dt in (torch.bfloat16, torch.float16):
    for d, dv in ((192, 192), (256, 256), (200, 200), (192, 128)):
        for causal in (False, True):
            q = torch.randn(1, 200, 2, d, device="cuda", dtype=dt, requires_grad=True)
            k = torch.randn(1, 150, 2, d, device="cuda", dtype=dt, requires_grad=True)
            v = torch.randn(1, 150, 2, dv, device="cuda", dtype=dt, requires_grad=True)
            bwd(q, k, v, causal=causal)
            bwd(q, k, v, causal=causal, deterministic=True)
            if d == dv:
                kv = torch.randn(1, 150, 1, d, device="cuda", dtype=dt, requires_grad=True)
                bwd(q, kv, kv, causal=causal, window_size=(60, 5), softcap=20.0)
    cu = torch.tensor([0, 70, 200, 333], device="cuda", dtype=torch.int32)
    for d in (192, 256):
        q, k, v = (torch.randn(333, 2, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 133, 133, causal=True)
        out.float().square().sum().backward()
        torch.cuda.synchronize()
print("sanitizer case done")
