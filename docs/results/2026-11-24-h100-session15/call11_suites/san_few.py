# The sm90a forward's few-tiles tile (64 x 128, one consumer: kernels/hopper/tile_policy.h
# pick_fwd_tile) under compute-sanitizer: d64 / d128 (and 40, 120 predicated), fp16 / bf16, causal
# and full, Sq != Sk both ways, GQA + window + softcap + sink, a packed batch; and the default tile
# forced on the same shapes.
import torch, flashcore
from flashcore import _attention
torch.manual_seed(0)
for tile in (None, "default"):
    _attention._set_forced_fwd_tile(tile)
    for dt in (torch.bfloat16, torch.float16):
        for d in (64, 128, 40, 120):
            for sq, sk in ((200, 150), (150, 333), (1, 77)):
                for causal in (False, True):
                    q = torch.randn(1, sq, 2, d, device="cuda", dtype=dt)
                    k, v = (torch.randn(1, sk, 2, d, device="cuda", dtype=dt) for _ in range(2))
                    flashcore.flash_attn_func(q, k, v, causal=causal)
            kv = torch.randn(1, 333, 1, d, device="cuda", dtype=dt)
            q = torch.randn(1, 200, 2, d, device="cuda", dtype=dt)
            flashcore.flash_attn_func(q, kv, kv, causal=True, window_size=(90, 5), softcap=20.0,
                                      learnable_sink=torch.randn(2, device="cuda"))
        cu = torch.tensor([0, 70, 200, 333], device="cuda", dtype=torch.int32)
        q, k, v = (torch.randn(333, 2, 64, device="cuda", dtype=dt) for _ in range(3))
        flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 133, 133, causal=True)
    torch.cuda.synchronize()
_attention._set_forced_fwd_tile(None)
print("sanitizer case done")
