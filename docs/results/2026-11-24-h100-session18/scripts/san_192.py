"""compute-sanitizer target for head dim 192's long-rows forward tile (128 x 112, unmasked only):
forced on small shapes and by shape on a long one; dense and packed, GQA, softcap, a sink, lse; 192
and 184 (predicated); fp16 and bf16. Outputs poisoned with NaN first and checked finite."""
import torch
import flashcore
from flashcore import _attention

_attention._set_poison_outputs(True)
torch.manual_seed(0)
dev = "cuda"


def check(*ts):
    for t in ts:
        assert torch.isfinite(t).all(), "non-finite output"


def run(dtype, d, sq, sk, hq, hk, varlen, softcap=0.0, sink=False):
    s = torch.randn(hq, device=dev, dtype=torch.float32) if sink else None
    if varlen:
        lq, lk = [sq - 37, sq], [sk, sk - 51]
        cq = torch.tensor([0, lq[0], lq[0] + lq[1]], device=dev, dtype=torch.int32)
        ck = torch.tensor([0, lk[0], lk[0] + lk[1]], device=dev, dtype=torch.int32)
        q = torch.randn(sum(lq), hq, d, device=dev, dtype=dtype)
        k = torch.randn(sum(lk), hk, d, device=dev, dtype=dtype)
        v = torch.randn(sum(lk), hk, d, device=dev, dtype=dtype)
        o, lse, _ = flashcore.flash_attn_varlen_func(q, k, v, cq, ck, max(lq), max(lk), softcap=softcap,
                                                     learnable_sink=s, return_attn_probs=True)
    else:
        q = torch.randn(2, sq, hq, d, device=dev, dtype=dtype)
        k = torch.randn(2, sk, hk, d, device=dev, dtype=dtype)
        v = torch.randn(2, sk, hk, d, device=dev, dtype=dtype)
        o, lse, _ = flashcore.flash_attn_func(q, k, v, softcap=softcap, learnable_sink=s, return_attn_probs=True)
    check(o, lse)


_attention._set_forced_fwd_tile("long_rows")
for dtype in (torch.bfloat16, torch.float16):
    for d in (192, 184):
        run(dtype, d, 203, 371, 4, 2, False)
        run(dtype, d, 150, 300, 4, 2, True, softcap=20.0, sink=True)
        run(dtype, d, 1, 250, 2, 1, False, sink=True)
_attention._set_forced_fwd_tile(None)
run(torch.bfloat16, 192, 900, 4100, 8, 8, False)  # by shape: >= 4096 keys
torch.cuda.synchronize()
print("san_192 done")
