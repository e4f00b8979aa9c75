"""Session 21: head dims 192 / 256's short rows (issue 15's misses against cuDNN: causal S1024, d256
full S1024) on a 64-row tile of one consumer warpgroup with two Q buffers (the few-tiles shape,
built for 192 / 256 in this experiment) against their default 128-row tiles (256: one Q buffer, so
a tile's Q load waits for the last tile's epilogue), and cuDNN, in one process on the same tensors,
kernel-only (CUDA-graph replay, triton.testing.do_bench_cudagraph), rounds interleaved, best kept.
Rows: the paper grid (16k tokens, hidden 2048) at S 1024 / 2048 / 4096, causal and not, bf16."""
import torch
import torch.nn.functional as F
import triton.testing as tt
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashcore
from flashcore import _attention

ROUNDS = 3
for d in (192, 256):
    for s in (1024, 2048, 4096):
        for causal in (False, True):
            b, h = 16384 // s, 2048 // d
            q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            scale = d ** -0.5
            flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

            def cudnn():
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)

            def fc(tile):
                def call():
                    _attention._set_forced_fwd_tile(tile)
                    return torch.ops.flashcore.attention_fwd(q, k, v, causal, scale)
                return call

            ref = cudnn().transpose(1, 2).float()
            best = {}
            for _ in range(ROUNDS):
                for name, fn in (("default", fc("default")), ("few_tiles", fc("few_tiles")), ("cudnn", cudnn)):
                    if name != "cudnn":
                        err = (fn()[0].float() - ref).abs().max().item()
                        assert err < 0.05, (name, err)
                    ms = tt.do_bench_cudagraph(fn, rep=25)
                    best[name] = max(best.get(name, 0.0), flops / ms / 1e9)
            _attention._set_forced_fwd_tile(None)
            print("d%d S%d %-6s default %6.1f  few_tiles %6.1f (%.3f)  cudnn %6.1f  default/cudnn %.3f  few/cudnn %.3f"
                  % (d, s, "causal" if causal else "full", best["default"], best["few_tiles"],
                     best["few_tiles"] / best["default"], best["cudnn"], best["default"] / best["cudnn"],
                     best["few_tiles"] / best["cudnn"]), flush=True)
