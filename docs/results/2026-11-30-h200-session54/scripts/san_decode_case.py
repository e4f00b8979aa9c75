"""Session 53 (reused by session 54): paged decode calls for compute-sanitizer (memcheck, racecheck) over the TMA walks:
pages of 16 and 64, key and address order, a partial last page, GQA 4, an append of 3 tokens; and
(call 7) 2 and 3 splits of 5000 keys, whose splits have sorted blocks past the 12 head blocks, each
checked against one split."""
import torch

import flashcore

torch.manual_seed(0)
for order in ("key", "address"):
    flashcore.kvcache._set_forced_page_order(order)
    for ps, (b, hq, hk, sk, snew) in [(16, (1, 8, 2, 4000, 1)), (64, (2, 8, 8, 3000, 3)), (16, (3, 4, 4, 1500, 1))]:
        d = 128
        pages = (sk + 256 + ps - 1) // ps
        kc = torch.randn(b * pages, ps, hk, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn_like(kc)
        table = torch.randperm(b * pages, device="cuda").view(b, pages).to(torch.int32)
        q = torch.randn(b, snew, hq, d, device="cuda", dtype=torch.bfloat16)
        kn = torch.randn(b, snew, hk, d, device="cuda", dtype=torch.bfloat16)
        vn = torch.randn_like(kn)
        lens = torch.tensor([sk - 7 * i for i in range(b)], dtype=torch.int32, device="cuda")
        out = flashcore.flash_attn_with_kvcache(q, kc, vc, k=kn, v=vn, cache_seqlens=lens, block_table=table,
                                                causal=True, num_splits=0)
        assert torch.isfinite(out).all()
    for ns in (2, 3):
        b, hq, hk, sk, d, ps = 1, 8, 2, 5000, 128, 16
        pages = (sk + ps - 1) // ps + 4
        kc = torch.randn(b * pages, ps, hk, d, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn_like(kc)
        table = torch.randperm(b * pages, device="cuda").view(b, pages).to(torch.int32)
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.tensor([sk - 5], dtype=torch.int32, device="cuda")
        out = flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, num_splits=ns)
        ref = flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, num_splits=1)
        err = (out.float() - ref.float()).abs().max().item()
        assert err < 2e-2, (order, ns, err)
flashcore.kvcache._set_forced_page_order(None)
torch.cuda.synchronize()
print("san case done")
