"""Session 49: split counts on issue 16's B1 rows, contiguous against pages of 16 (shuffled, as
tools/bench/decode.py lays them), interleaved in one process on the same tensors; median of ROUNDS
rounds of CUDA-graph replay per cell, % of the HBM floor. Question: does the paged walk (address
order, 128-key stages, eight warps) want another split count than the contiguous one the
heuristic was tuned on (session 31: 16 at B1 Hk8, 4 at B1 Hk32)?
Usage: python3 paged_splits.py [ROUNDS] [1|2|3]"""
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
gen = torch.Generator().manual_seed(0)
# Call 7: PAGES 16, the first split lists; call 8 (second argument "2"): pages 16 and 256, the second.
SPLITS = {"1": [((1, 32, 8, 131072), (0, 8, 12, 16, 20, 24, 32)), ((1, 32, 32, 65536), (0, 2, 3, 4, 6, 8))],
          "2": [((1, 32, 8, 131072), (0, 12, 32, 33)), ((1, 32, 32, 65536), (0, 8))],
          # Call 9: the same rows at head dims 64 and 256, the heuristic's count and twice it.
          "3": [((1, 32, 8, 131072), (0, 32)), ((1, 32, 32, 65536), (0, 8))]}
variant = sys.argv[2] if len(sys.argv) > 2 else "1"
ROWS = SPLITS[variant]
PAGES = (16,) if variant == "1" else (16, 256)
HEAD_DIMS = (64, 256) if variant == "3" else (128,)
for d, ((b, hq, hk, sk), splits) in [(d, r) for d in HEAD_DIMS for r in ROWS]:
    q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
    ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
    caches = {"contig": (k, v, None)}
    for ps in PAGES:
        table = decode.page_table(b, sk, ps, gen, "cuda")
        caches["page%d" % ps] = (decode.scatter_pages(k, table, ps), decode.scatter_pages(v, table, ps), table)
    # Call 8: pages of 16 also in each forced order (kvcache._set_forced_page_order, test-only;
    # "address" only where the call is eligible), to tell the split count from the walk.
    orders = (None,) if variant == "1" else (None, "key", "address")
    times = {}
    for _ in range(rounds):
        for layout, (kc, vc, tb) in caches.items():
            for order in (orders if layout == "page16" else (None,)):
                flashcore.kvcache._set_forced_page_order(order)
                for ns in splits:
                    def call(kc=kc, vc=vc, tb=tb, ns=ns):
                        return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb,
                                                                 num_splits=ns)
                    err = (call().float() - ref).abs().max().item()
                    assert err < 2e-2, (layout, order, ns, err)
                    times.setdefault((layout + ("" if order is None else "/" + order), ns), []).append(
                        decode.graph_time_us(call))
                flashcore.kvcache._set_forced_page_order(None)
    print("B%d Hq%d Hk%d k%d d%d | floor %.1f us" % (b, hq, hk, sk, d, floor_us))
    for (layout, ns), ts in times.items():
        med = sorted(ts)[len(ts) // 2]
        print("  %-15s splits %-4s %7.1f us %5.1f%%  (%s)" % (layout, ns if ns else "heur", med, 100 * floor_us / med,
                                                           " ".join("%.1f" % t for t in ts)), flush=True)
    del q, k, v, caches, ref
    torch.cuda.empty_cache()
