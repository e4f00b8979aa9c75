"""Session 53: where the page-16 decode cells lose (issue 16). Issue 16's six d128 bf16 decode rows,
each cache layout interleaved in one process on the same K / V, median of ROUNDS rounds of
CUDA-graph replay per cell, % of the HBM floor:
  contig      the dense (B, S, Hk, D) cache;
  p16_rand    pages of 16 at a random permutation of every page (tools/bench/decode.py's layout);
  p16_ident   pages of 16 in key order, page i of row b at b * pages + i (the walk's own cost:
              the same boxes and table reads as p16_rand, no physical scatter);
  p16_local   pages of 16 shuffled only within 2 MiB windows (TLB-sized locality kept, DRAM-row
              locality lost): tells translation misses from DRAM locality;
  p16_rand/address  p16_rand with the pages visited in address order wherever eligible
              (kvcache._set_forced_page_order, test-only);
  p64_rand, p256_rand  larger pages, random.
Usage: python3 paged_scatter.py [ROUNDS]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
gen = torch.Generator().manual_seed(0)
ROWS = [(1, 32, 32, 65536), (1, 32, 8, 131072), (8, 32, 32, 32768), (32, 32, 32, 8192), (128, 32, 8, 2048),
        (64, 64, 8, 4096)]
# Call 2 (third argument "walk"): identity tables only, each page size and each forced order, to
# tell the walk's own cost (box rows, sort, tile shape) from the scatter.
WALK = len(sys.argv) > 3 and sys.argv[3] == "walk"
D = 128


def local_table(b, sk, ps, hk, window_bytes=2 << 20):
    """Pages of `ps` keys in key order of whole windows of window_bytes, shuffled inside each."""
    pages = b * sk // ps
    per_window = max(1, window_bytes // (ps * hk * D * 2))
    perm = torch.arange(pages)
    for w0 in range(0, pages, per_window):
        w1 = min(pages, w0 + per_window)
        perm[w0:w1] = w0 + torch.randperm(w1 - w0, generator=gen)
    return perm.view(b, sk // ps).to(torch.int32).cuda()


for (b, hq, hk, sk) in ROWS:
    name = "B%d Hq%d Hk%d k%d" % (b, hq, hk, sk)
    if only and name.split()[0] + "_" + name.split()[2] not in only:
        continue
    q = torch.randn(b, 1, hq, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * D * 2 * 2 / bw * 1e6
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
    ident = lambda ps: (ps, torch.arange(b * sk // ps, dtype=torch.int32, device="cuda").view(b, sk // ps))
    tables = {"p16_ident": ident(16), "p32_ident": ident(32), "p64_ident": ident(64),
              "p128_ident": ident(128)} if WALK else {
        "p16_rand": (16, decode.page_table(b, sk, 16, gen, "cuda")),
        "p16_ident": (16, torch.arange(b * sk // 16, dtype=torch.int32, device="cuda").view(b, sk // 16)),
        "p16_local": (16, local_table(b, sk, 16, hk)),
        "p64_rand": (64, decode.page_table(b, sk, 64, gen, "cuda")),
        "p256_rand": (256, decode.page_table(b, sk, 256, gen, "cuda")),
    }
    cells = [("contig", k, v, None, None)]
    for lay, (ps, tb) in tables.items():
        kc, vc = decode.scatter_pages(k, tb, ps), decode.scatter_pages(v, tb, ps)
        cells.append((lay, kc, vc, tb, None))
        if lay == "p16_rand" or (WALK and lay != "p128_ident"):
            cells.append((lay + "/address", kc, vc, tb, "address"))
            cells.append((lay + "/key", kc, vc, tb, "key"))
    times = {}
    for _ in range(rounds):
        for lay, kc, vc, tb, order in cells:
            flashcore.kvcache._set_forced_page_order(order)

            def call(kc=kc, vc=vc, tb=tb):
                return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb)
            err = (call().float() - ref).abs().max().item()
            assert err < 2e-2, (lay, err)
            times.setdefault(lay, []).append(decode.graph_time_us(call))
            flashcore.kvcache._set_forced_page_order(None)
    print("%s d%d | floor %.1f us" % (name, D, floor_us))
    for lay, ts in times.items():
        med = sorted(ts)[len(ts) // 2]
        print("  %-18s %8.1f us %5.1f%%  (%s)" % (lay, med, 100 * floor_us / med, " ".join("%.1f" % t for t in ts)),
              flush=True)
    del q, k, v, cells, ref, tables
    torch.cuda.empty_cache()
