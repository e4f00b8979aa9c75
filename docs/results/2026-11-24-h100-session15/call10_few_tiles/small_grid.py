"""Small-grid forward rows (few 128-row tiles: short prompts, one sequence, few heads), kernel-only
(CUDA-graph replay), flashcore and cuDNN in the same process on the same tensors."""
import sys, torch, triton.testing as tt
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import flashcore
label = sys.argv[1]
rows = [(1, 8, 512, 64), (1, 8, 1024, 64), (1, 16, 512, 64), (1, 8, 512, 128), (1, 8, 1024, 128),
        (1, 16, 1024, 128), (2, 8, 512, 128), (1, 32, 256, 128), (1, 4, 2048, 128), (1, 8, 2048, 64)]
for b, h, s, d in rows:
    for causal in (False, True):
        g = torch.Generator(device="cuda").manual_seed(s + d)
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
        fc = lambda: flashcore.flash_attn_func(q, k, v, causal=causal)
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        def cd():
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        err = (fc().float() - cd().transpose(1, 2).float()).abs().max().item()
        t_fc = tt.do_bench_cudagraph(fc, rep=30) * 1000
        t_cd = tt.do_bench_cudagraph(cd, rep=30) * 1000
        print(f"{label} B{b} H{h} S{s} d{d} {'causal' if causal else 'full'}: flashcore {t_fc:.2f} us  cudnn {t_cd:.2f} us  fc/cudnn time {t_fc / t_cd:.3f}  maxdiff {err:.3g}", flush=True)
