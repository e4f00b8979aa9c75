# Session 41: the sm90a forward's producer warp, now in kernels/hopper/fwd_producer.cuh, under
# compute-sanitizer memcheck / racecheck (dc_sanitize, its default filter kns=fwd_kernel) on the
# paths session 38's partial-tile case does not take: a paged KV cache through
# flash_attn_varlen_func(block_table=, seqused_k=) at pages of 16, 64 and 256 (boxes inside pages,
# non-contiguous random pages, a block past seqused_k, rows past a sequence patched), head dims 64
# and 128, causal and not, GQA; and a dense cache with seqused_k (the V patch of a dense call).
import torch, flashcore
from flashcore import kvcache
torch.manual_seed(0)
kvcache._set_forced_forward(True)  # the paged calls on the forward kernel, whatever their rows
dt = torch.bfloat16
for d in (64, 128):
    for page in (16, 64, 256):
        lens_q, lens_k = [37, 300, 129], [500, 300, 777]
        b, hk, hq = len(lens_q), 2, 8
        pages_per = [(n + page - 1) // page for n in lens_k]
        npages = sum(pages_per) + 3
        perm = torch.randperm(npages, device="cuda", dtype=torch.int32)
        table = torch.zeros(b, max(pages_per), device="cuda", dtype=torch.int32)
        o = 0
        for i, n in enumerate(pages_per):
            table[i, :n] = perm[o:o + n]
            o += n
        kc, vc = (torch.randn(npages, page, hk, d, device="cuda", dtype=dt) for _ in range(2))
        cu_q = torch.tensor([0] + list(torch.tensor(lens_q).cumsum(0)), device="cuda", dtype=torch.int32)
        q = torch.randn(int(cu_q[-1]), hq, d, device="cuda", dtype=dt)
        used = torch.tensor(lens_k, device="cuda", dtype=torch.int32)
        for causal in (False, True):
            out = flashcore.flash_attn_varlen_func(q, kc, vc, cu_q, None, max(lens_q), max(lens_k), causal=causal,
                                                   block_table=table, seqused_k=used)
            torch.cuda.synchronize()
            assert torch.isfinite(out).all()
    q = torch.randn(2, 200, 4, d, device="cuda", dtype=dt)
    k, v = (torch.randn(2, 600, 4, d, device="cuda", dtype=dt) for _ in range(2))
    k[:, 450:] = float("nan")
    v[:, 450:] = float("nan")
    used = torch.tensor([450, 333], device="cuda", dtype=torch.int32)
    cu = torch.tensor([0, 200, 400], device="cuda", dtype=torch.int32)
    cuk = torch.tensor([0, 600, 1200], device="cuda", dtype=torch.int32)
    out = flashcore.flash_attn_varlen_func(q.reshape(400, 4, d), k.reshape(1200, 4, d), v.reshape(1200, 4, d), cu, cuk,
                                           200, 600, causal=True, seqused_k=used)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
print("sanitizer case done")
