"""Session 54: would sorting a row's pages once across its splits (bands) help the B1 page-16 cells?
Issue 16's two single-sequence d128 bf16 rows, every layout interleaved in one process on the same
K / V, median of ROUNDS rounds of CUDA-graph replay per cell, % of the HBM floor (4.80 TB/s):
  contig       the dense cache;
  p16_rand     tools/bench/decode.py's random pages (what the table reports);
  p16_ident    page i at physical i (the walk's own cost, no scatter);
  p16_band     each split's pages a random permutation of its own dense physical band: what a
               per-split sort turns into a sequential stream (the best a row-wide sort could give);
  p16_rowsort  what a row-wide sort of random pages would hand each split: head blocks
               (kDecodeSortHeadBlocks, read in key order while the sort runs) at random pages,
               the rest of the row's pages sorted once and dealt to the splits in order, each
               split's share shuffled over its own non-head positions (the per-split sort
               restores the order);
  /key         the same table visited in key order (kvcache._set_forced_page_order, test-only).
Usage: python3 paged_bands.py [ROUNDS]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
gen = torch.Generator().manual_seed(0)
D, PS, BLOCK_N, HEAD_BLOCKS = 128, 16, 128, 12  # the address-order walk's 128-key blocks (tile_policy.h)
ROWS = [(1, 32, 32, 65536, 4), (1, 32, 8, 131072, 16)]  # (B, Hq, Hk, keys, the heuristic's splits)


def band_table(pages, splits):
    per = pages // splits
    t = torch.empty(pages, dtype=torch.int64)
    for s in range(splits):
        t[s * per:(s + 1) * per] = s * per + torch.randperm(per, generator=gen)
    return t


def rowsort_table(pages, splits):
    per = pages // splits
    head = HEAD_BLOCKS * BLOCK_N // PS
    perm = torch.randperm(pages, generator=gen)
    t = torch.empty(pages, dtype=torch.int64)
    n_head = splits * head
    heads, rest = perm[:n_head], perm[n_head:].sort().values
    tail = per - head
    for s in range(splits):
        t[s * per:s * per + head] = heads[s * head:(s + 1) * head]
        share = rest[s * tail:(s + 1) * tail]
        t[s * per + head:(s + 1) * per] = share[torch.randperm(tail, generator=gen)]
    return t


for (b, hq, hk, sk, splits) in ROWS:
    name = "B%d Hq%d Hk%d k%d" % (b, hq, hk, sk)
    q = torch.randn(b, 1, hq, D, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, D, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * D * 2 * 2 / bw * 1e6
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
    pages = sk // PS
    as_table = lambda t: t.to(torch.int32).view(b, pages).cuda()
    tables = {
        "p16_rand": decode.page_table(b, sk, PS, gen, "cuda"),
        "p16_ident": as_table(torch.arange(pages)),
        "p16_band": as_table(band_table(pages, splits)),
        "p16_rowsort": as_table(rowsort_table(pages, splits)),
    }
    cells = [("contig", k, v, None, None)]
    for lay, tb in tables.items():
        kc, vc = decode.scatter_pages(k, tb, PS), decode.scatter_pages(v, tb, PS)
        cells.append((lay, kc, vc, tb, None))
        if lay != "p16_ident":
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
    base = sorted(times["contig"])[len(times["contig"]) // 2]
    for lay, ts in times.items():
        med = sorted(ts)[len(ts) // 2]
        print("  %-18s %8.1f us %5.1f%%  %+5.1f%%  (%s)" % (lay, med, 100 * floor_us / med, 100 * (med / base - 1),
                                                         " ".join("%.1f" % t for t in ts)), flush=True)
    del q, k, v, cells, ref, tables
    torch.cuda.empty_cache()
