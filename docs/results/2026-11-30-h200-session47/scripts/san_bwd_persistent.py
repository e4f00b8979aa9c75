# Session 47: the persistent head-dim-64 backward (tile_policy.h bwd_persistent) under
# compute-sanitizer memcheck / racecheck (dc_sanitize, DC_SAN_KERNELS=kns=bwd_kernel): grids of
# more works than SMs (so every CTA walks several), works without steps (a window that leaves the
# first key blocks unseen), GQA (a work walks every query head of its group), the sink and
# packed-softcap kernels, a packed varlen batch of many sequences; bf16 and fp16, causal and not.
# Session 41's cases at 64 (one work per CTA) run too.
import os
import sys

import torch
import flashcore

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../2026-11-29-h200-session41/scripts"))
import san_bwd_ahead  # noqa: E402


def bwd(*tensors, **kw):
    out = flashcore.flash_attn_func(*tensors, **kw)
    out.float().square().sum().backward()
    torch.cuda.synchronize()
    print("case", tuple(tensors[0].shape), tuple(tensors[1].shape), kw.keys(), flush=True)


def run():
    torch.manual_seed(0)
    d = 64
    for dt in (torch.bfloat16, torch.float16):
        for causal in (False, True):
            q, k, v = (torch.randn(1, 768, 48, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
            bwd(q, k, v, causal=causal)  # 288 works on 132 CTAs
        q = torch.randn(1, 200, 64, d, device="cuda", dtype=dt, requires_grad=True)
        k, v = (torch.randn(1, 1536, 64, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(2))
        bwd(q, k, v, causal=True, window_size=(100, 0))  # key blocks 0..9 of every head: no steps
        q = torch.randn(2, 512, 32, d, device="cuda", dtype=dt, requires_grad=True)
        k, v = (torch.randn(2, 512, 8, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(2))
        bwd(q, k, v, causal=True)  # GQA 4: 64 works, 4 heads x steps each
        q, k, v = (torch.randn(2, 640, 40, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        bwd(q, k, v, softcap=30.0)
        sink = torch.randn(40, device="cuda", dtype=torch.float32, requires_grad=True)
        bwd(q, k, v, causal=True, learnable_sink=sink)
        lens = torch.randint(1, 400, (48,), generator=torch.Generator().manual_seed(1))
        cu = torch.zeros(49, dtype=torch.int32)
        cu[1:] = torch.cumsum(lens, 0)
        cu = cu.cuda()
        n = int(cu[-1])
        q, k, v = (torch.randn(n, 8, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, int(lens.max()), int(lens.max()), causal=True)
        out.float().square().sum().backward()
        torch.cuda.synchronize()
    san_bwd_ahead.run((64,))
    print("persistent sanitizer case done")


if __name__ == "__main__":
    run()
