# The sm90a forward at head dim 96, both tiles (128 x 128 x 3 for short rows, 128 x 176 x 2 from
# 2048 keys / 4096 causal: kernels/hopper/tile_policy.h fwd_long_rows) under compute-sanitizer:
# fp16 and bf16, causal and full, 96 and 80 (predicated), GQA + window + softcap + sink, packed.
import torch, flashcore
torch.manual_seed(0)
for dt in (torch.bfloat16, torch.float16):
    for d in (96, 80):
        for sk in (1000, 4100):  # short tile, long tile (both masks)
            for causal in (False, True):
                q = torch.randn(1, 200, 2, d, device="cuda", dtype=dt)
                k, v = (torch.randn(1, sk, 2, d, device="cuda", dtype=dt) for _ in range(2))
                flashcore.flash_attn_func(q, k, v, causal=causal)
                kv = torch.randn(1, sk, 1, d, device="cuda", dtype=dt)
                flashcore.flash_attn_func(q, kv, kv, causal=causal, window_size=(900, 5), softcap=20.0,
                                          learnable_sink=torch.randn(2, device="cuda"))
    cu_q = torch.tensor([0, 70, 200, 333], device="cuda", dtype=torch.int32)
    cu_k = torch.tensor([0, 4100, 4300, 4433], device="cuda", dtype=torch.int32)
    q = torch.randn(333, 2, 96, device="cuda", dtype=dt)
    k, v = (torch.randn(4433, 2, 96, device="cuda", dtype=dt) for _ in range(2))
    flashcore.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 133, 4100, causal=True)
    torch.cuda.synchronize()
print("sanitizer case done")
