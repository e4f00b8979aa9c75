# Session 41: the sm90a backward at head dims 128 and 96 (and 80, predicated on the 96 kernel; 120
# on the 128 one) with each step's S^T / dP^T issued before the step before's dK has finished
# (tile_policy.h bwd_scores_ahead), under compute-sanitizer memcheck / racecheck (dc_sanitize,
# DC_SAN_KERNELS=kns=bwd_kernel). Cases: one step per CTA (seqlen_q <= one query block), several,
# more CTAs than SMs, causal / full, Sq != Sk, deterministic, the sink kernel, the packed-softcap
# kernel (softcap, no sink), GQA with a window, a packed varlen batch; bf16 and fp16.
import torch, flashcore


def bwd(*tensors, **kw):
    out = flashcore.flash_attn_func(*tensors, **kw)
    out.float().square().sum().backward()
    torch.cuda.synchronize()


def run(head_dims):
    """The case at each head dim of head_dims, bf16 then fp16 (san_bwd_dkall.py runs it too)."""
    torch.manual_seed(0)
    for dt in (torch.bfloat16, torch.float16):
        for d in head_dims:
            for sq, sk, h in ((50, 70, 3), (333, 333, 34), (700, 450, 2)):
                for causal in (False, True):
                    q = torch.randn(1, sq, h, d, device="cuda", dtype=dt, requires_grad=True)
                    k, v = (torch.randn(1, sk, h, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(2))
                    bwd(q, k, v, causal=causal)
            q, k, v = (torch.randn(2, 300, 4, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
            bwd(q, k, v, causal=True, deterministic=True)
            bwd(q, k, v, causal=False, deterministic=True)
            bwd(q, k, v, softcap=30.0)
            bwd(q, k, v, causal=True, softcap=30.0)
            sink = torch.randn(4, device="cuda", dtype=torch.float32, requires_grad=True)
            bwd(q, k, v, causal=True, learnable_sink=sink)
            kv = torch.randn(1, 512, 2, d, device="cuda", dtype=dt, requires_grad=True)
            q = torch.randn(1, 512, 8, d, device="cuda", dtype=dt, requires_grad=True)
            bwd(q, kv, kv, causal=True, window_size=(100, 0), softcap=20.0)
            cu = torch.tensor([0, 70, 200, 333, 463, 600], device="cuda", dtype=torch.int32)
            n = int(cu[-1])
            q, k, v = (torch.randn(n, 4, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
            out = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 137, 137, causal=True)
            out.float().square().sum().backward()
            torch.cuda.synchronize()
    print("sanitizer case done")


if __name__ == "__main__":
    run((128, 96, 80, 120))
