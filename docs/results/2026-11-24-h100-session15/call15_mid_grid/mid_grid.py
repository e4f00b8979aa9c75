"""Mid-sized grids (SMs/2 < tiles of 128 rows <= 2 SMs), kernel-only: the forward's tile by shape
(None), the one-consumer few-tiles tile forced, and the default tile forced, in one process,
interleaved over 3 rounds; cuDNN beside them."""
import torch, triton.testing as tt
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import flashcore
from flashcore import _attention
rows = [(1, 8, 2048, 64), (1, 16, 1024, 64), (1, 16, 1024, 128), (2, 8, 1024, 128), (1, 12, 1024, 128),
        (1, 32, 512, 128), (1, 24, 1024, 64), (1, 32, 1024, 128), (1, 8, 4096, 128), (4, 8, 1024, 64)]
for b, h, s, d in rows:
    for causal in (False, True):
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        def cd():
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        t = {}
        for rnd in range(3):
            for tile in (None, "few_tiles", "default"):
                _attention._set_forced_fwd_tile(tile)
                fn = lambda: flashcore.flash_attn_func(q, k, v, causal=causal)
                t.setdefault(str(tile), []).append(tt.do_bench_cudagraph(fn, rep=30) * 1000)
            _attention._set_forced_fwd_tile(None)
            t.setdefault("cudnn", []).append(tt.do_bench_cudagraph(cd, rep=30) * 1000)
        m = {k2: min(v2) for k2, v2 in t.items()}
        tiles = b * h * ((s + 127) // 128)
        print(f"B{b} H{h} S{s} d{d} {'causal' if causal else 'full'} tiles128={tiles}: auto {m['None']:.2f}  few {m['few_tiles']:.2f}  default {m['default']:.2f}  cudnn {m['cudnn']:.2f} us  few/default {m['few_tiles']/m['default']:.3f}", flush=True)
