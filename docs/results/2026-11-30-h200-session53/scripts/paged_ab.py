"""Session 53: decode cells for an A/B of two builds in alternating processes (the build on
PYTHONPATH). Prints "LABEL|row|layout|us|pct" lines; paged_ab_table.py takes the best per cell and
build. Layouts as paged_scatter.py (a /key or /address suffix forces the page order).
Usage: python3 paged_ab.py LABEL [HEAD_DIMS, default 128] [b1: the B1 rows only]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

label = sys.argv[1]
dims = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "128").split(",")]
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
B1 = ["contig", "p16_rand", "p16_rand/key", "p16_ident/key", "p16_ident/address", "p32_rand", "p64_rand"]
BATCHED = ["contig", "p16_rand", "p16_ident", "p256_rand"]
ROWS = [((1, 32, 32, 65536), B1), ((1, 32, 8, 131072), B1)]
ROWS_D128 = [((8, 32, 32, 32768), BATCHED), ((32, 32, 32, 8192), BATCHED), ((128, 32, 8, 2048), BATCHED),
             ((64, 64, 8, 4096), BATCHED)]
for d in dims:
    b1_only = len(sys.argv) > 3 and sys.argv[3] == "b1"
    for (b, hq, hk, sk), layouts in ROWS + (ROWS_D128 if d == 128 and not b1_only else []):
        gen = torch.Generator().manual_seed(0)
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
        floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
        ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
        caches = {}
        for lay in layouts:
            base, _, order = lay.partition("/")
            if base not in caches:
                if base == "contig":
                    caches[base] = (k, v, None)
                else:
                    ps = int(base[1:].split("_")[0])
                    tb = (decode.page_table(b, sk, ps, gen, "cuda") if base.endswith("rand")
                          else torch.arange(b * sk // ps, dtype=torch.int32, device="cuda").view(b, sk // ps))
                    caches[base] = (decode.scatter_pages(k, tb, ps), decode.scatter_pages(v, tb, ps), tb)
            kc, vc, tb = caches[base]
            flashcore.kvcache._set_forced_page_order(order or None)

            def call(kc=kc, vc=vc, tb=tb):
                return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb)
            err = (call().float() - ref).abs().max().item()
            assert err < 2e-2, (lay, err)
            us = decode.graph_time_us(call)
            flashcore.kvcache._set_forced_page_order(None)
            print("%s|d%d B%d Hq%d Hk%d k%d|%s|%.2f|%.2f" % (label, d, b, hq, hk, sk, lay, us, 100 * floor_us / us),
                  flush=True)
        del q, k, v, caches, ref
        torch.cuda.empty_cache()
