"""Session 54: the sm90a decode kernel's cp.async paged walk against its TMA walk, no build: a
cache_leftpad of zeros (the same keys) makes a paged call leave the TMA walk (decode_tma_fits), so
the same pages run through the per-row cp.async copies. Issue 16's six d128 bf16 rows, random
tables, every cell interleaved in one process, median of ROUNDS rounds of CUDA-graph replay, % of
the HBM floor. Usage: python3 walk_by_leftpad.py [ROUNDS] [PAGES=16,32,256]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
pages = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "16,32,256").split(",")]
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
D = 128
for (b, hq, hk, sk) in decode.DECODE_ROWS:
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(b, 1, hq, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    zeros = torch.zeros((b,), dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * D * 2 * 2 / bw * 1e6
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
    cells = [("contig", k, v, None, None)]
    for ps in pages:
        tb = decode.page_table(b, sk, ps, gen, "cuda")
        kc, vc = decode.scatter_pages(k, tb, ps), decode.scatter_pages(v, tb, ps)
        cells += [("p%d tma" % ps, kc, vc, tb, None), ("p%d cp.async" % ps, kc, vc, tb, zeros)]
    times = {}
    for _ in range(rounds):
        for lay, kc, vc, tb, lp in cells:
            def call(kc=kc, vc=vc, tb=tb, lp=lp):
                return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb,
                                                         cache_leftpad=lp)
            err = (call().float() - ref).abs().max().item()
            assert err < 2e-2, (lay, err)
            times.setdefault(lay, []).append(decode.graph_time_us(call))
    print("B%d Hq%d Hk%d k%d d%d | floor %.1f us" % (b, hq, hk, sk, D, floor_us))
    for lay, ts in times.items():
        med = sorted(ts)[len(ts) // 2]
        print("  %-14s %8.1f us %5.1f%%" % (lay, med, 100 * floor_us / med), flush=True)
    del q, k, v, cells, ref
    torch.cuda.empty_cache()
