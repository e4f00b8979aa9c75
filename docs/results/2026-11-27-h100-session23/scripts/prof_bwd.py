"""Session 23: one backward of FA4 or flashcore inside a cudaProfilerStart/Stop range, for ncu
--profile-from-start off (bf16, B4 S4096, H 2048/d, not causal by default; argv: backend
[head_dim] [causal]). The forward runs before the range; only the backward's kernels are in it."""
import sys
import torch

backend = sys.argv[1]
d = int(sys.argv[2]) if len(sys.argv) > 2 else 64
causal = len(sys.argv) > 3 and sys.argv[3] == "causal"
b, s, h = 4, 4096, 2048 // d
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_() for _ in range(3))
dout = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g)
if backend == "fa4":
    from flash_attn.cute import flash_attn_func
    fn = lambda: flash_attn_func(q, k, v, causal=causal)[0]
else:
    import flashcore
    fn = lambda: flashcore.flash_attn_func(q, k, v, causal=causal)
for _ in range(5):
    fn().backward(dout)
torch.cuda.synchronize()
out = fn()
torch.cuda.synchronize()
torch.cuda.profiler.start()
out.backward(dout)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print(backend, "done")
