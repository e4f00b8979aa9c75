"""Session 54: the B1 decode cells (bf16, 1 query token, heuristic splits, random tables as
tools/bench/decode.py lays them) of one build, for A/Bs in alternating processes. One line per cell:
LABEL|d|row|layout|us|% of the HBM floor. CUDA-graph replay, best of REPS timings in this process.
Usage: python3 paged_cells.py LABEL [DIMS=128,64] [REPS=3] [PAGES=16] [ROWS=b1|all]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

label = sys.argv[1]
dims = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "128,64").split(",")]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
page_sizes = [int(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "16").split(",")]
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
ROWS = [(1, 32, 32, 65536), (1, 32, 8, 131072)]
if len(sys.argv) > 5 and sys.argv[5] == "all":  # issue 16's six rows
    ROWS += [(8, 32, 32, 32768), (32, 32, 32, 8192), (128, 32, 8, 2048), (64, 64, 8, 4096)]
for d in dims:
    for (b, hq, hk, sk) in ROWS:
        gen = torch.Generator().manual_seed(0)
        name = "B%d Hq%d Hk%d k%d" % (b, hq, hk, sk)
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
        floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
        ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
        cells = [("contig", k, v, None)]
        for ps in page_sizes:
            tb = decode.page_table(b, sk, ps, gen, "cuda")
            cells.append(("p%d_rand" % ps, decode.scatter_pages(k, tb, ps), decode.scatter_pages(v, tb, ps), tb))
        for lay, kc, vc, tb in cells:
            def call(kc=kc, vc=vc, tb=tb):
                return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb)
            err = (call().float() - ref).abs().max().item()
            assert err < 2e-2, (lay, err)
            us = min(decode.graph_time_us(call) for _ in range(reps))
            print("%s|d%d|%s|%s|%.2f|%.2f" % (label, d, name, lay, us, 100 * floor_us / us), flush=True)
        del q, k, v, cells, ref
        torch.cuda.empty_cache()
