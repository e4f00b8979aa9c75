"""Session 51: decode rows (d128 bf16, q 1 token) for ncu or CUDA-graph timing.
Questions: how unevenly the split kernel's CTAs finish on the single-sequence rows, and whether the
address-order page walk (test-only forced order) pays on the batched rows at pages of 16.
Usage: python3 decode_ncu.py HK SEQLEN LAYOUTS SPLITS [--time [--rounds R]] [--b B] [--hq HQ]
  LAYOUTS: comma-separated; contig | pageN (shuffled pages, the rule's order) | pageNkey / pageNaddr
  (that order forced) | pageNinorder (pages in key order: the contiguous cache's addresses) |
  pageN[key]localW (pages shuffled only within windows of W physical pages).
  Without --time: three eager calls of the first layout (for ncu or the stamps build)."""
import re
import sys

import torch

sys.path.insert(0, "tools/bench")
import decode  # noqa: E402
import flashcore  # noqa: E402


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


hk, sk, layouts, ns = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4])
b, hq, d = arg("--b", 1), arg("--hq", 32), 128
gen = torch.Generator().manual_seed(0)
q = torch.randn(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=ns).float()


def setup(layout):
    """(k cache, v cache, block table or None, forced page order)."""
    if layout == "contig":
        return k, v, None, None
    ps = int(re.match(r"page(\d+)", layout).group(1))
    table = decode.page_table(b, sk, ps, gen, "cuda")
    if layout.endswith("inorder"):
        table = torch.arange(table.numel(), dtype=torch.int32, device="cuda").view_as(table)
    local = re.search(r"local(\d+)$", layout)
    if local:  # pages shuffled only within windows of W physical pages (W x page bytes of each cache)
        w = int(local.group(1))
        n = table.numel()
        perm = torch.arange(n)
        for i in range(0, n, w):
            perm[i:i + w] = i + torch.randperm(min(w, n - i), generator=gen)
        table = perm.to(torch.int32).to("cuda").view_as(table)
    order = "key" if "key" in layout else "address" if layout.endswith("addr") else None
    return decode.scatter_pages(k, table, ps), decode.scatter_pages(v, table, ps), table, order


caches = {lay: setup(lay) for lay in layouts}


def make_call(lay):
    kc, vc, tb, order = caches[lay]

    def call():
        return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=tb, num_splits=ns)
    return call, order


if "--time" in sys.argv:
    bw = decode.hbm_bandwidth(torch.cuda.get_device_name())
    floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
    times = {}
    for _ in range(arg("--rounds", 3)):
        for lay in layouts:
            call, order = make_call(lay)
            flashcore.kvcache._set_forced_page_order(order)
            err = (call().float() - ref).abs().max().item()
            assert err < 2e-2, (lay, err)
            times.setdefault(lay, []).append(decode.graph_time_us(call))
            flashcore.kvcache._set_forced_page_order(None)
    for lay, ts in times.items():
        t = sorted(ts)[len(ts) // 2]
        print("B%d Hq%d Hk%d k%d %-14s splits %-3d %7.1f us %5.1f%% (%s)" % (
            b, hq, hk, sk, lay, ns, t, 100 * floor_us / t, " ".join("%.1f" % x for x in ts)), flush=True)
else:
    call, order = make_call(layouts[0])
    flashcore.kvcache._set_forced_page_order(order)
    for _ in range(3):
        call()
    torch.cuda.synchronize()
