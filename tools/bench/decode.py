"""Decode benchmark (issue 16): flashcore.flash_attn_with_kvcache vs torch SDPA (flash, cuDNN) and,
with --fa4, FlashAttention-4 (contiguous and paged), with --flashinfer, FlashInfer's paged decode
(its CUDA-core and tensor-core kernels), on one-token decode over long KV caches, and chunked
prefill against flashcore's plain forward.

  python tools/bench/decode.py --out_dir=/tmp/bench          # with flashcore importable
  python tools/bench/attention.py --mode=decode ...          # the same, through the attention bench

Timing: CUDA-graph kernel time -- --calls calls captured in one graph, replayed --reps times
between CUDA events, per call. No L2 flush: every row's K/V is far larger than the L2. % of floor:
the bytes of K and V read once (batch x keys x kv heads x head_dim x 2 tensors x 2 bytes) at the
HBM bandwidth of the GPU (H100 SXM 3.35 TB/s, H200 4.8 TB/s) over the measured time.

torch SDPA gets (B, H, 1, D) views with enable_gqa=True where the backend takes it; a backend that
refuses a row gets "-" (its error is in the JSON). flashcore's output is checked against torch's
(max abs difference) on every row.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

# (batch, heads_q, heads_kv, keys): the "Done when" rows (q 1 token, d128, bf16).
DECODE_ROWS = [
    (1, 32, 32, 65536),
    (1, 32, 8, 131072),
    (8, 32, 32, 32768),
    (32, 32, 32, 8192),
    (128, 32, 8, 2048),
    (64, 64, 8, 4096),
]
LAYOUTS = ("contig", "page16", "page256")
HBM_BYTES_PER_S = {"H100": 3.35e12, "H200": 4.8e12}


def hbm_bandwidth(name):
    for key, bw in HBM_BYTES_PER_S.items():
        if key in name:
            return bw
    return 3.35e12


def graph_time_us(fn, calls=20, reps=10):
    """Per-call kernel time of fn from CUDA-graph replay (no host work between kernels)."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / calls)
    times.sort()
    return times[len(times) // 2]


def page_table(batch, keys, page_size, gen, device):
    """A block table of shuffled physical pages: int32 (batch, keys / page_size)."""
    import torch
    pages = keys // page_size
    return torch.randperm(batch * pages, generator=gen).to(device).view(batch, pages).to(torch.int32)


def scatter_pages(x, table, page_size):
    """x (B, S, Hk, D) laid into the pages of `table`: (num_pages, page_size, Hk, D)."""
    import torch
    b, s, hk, d = x.shape
    cache = torch.empty((table.numel(), page_size, hk, d), dtype=x.dtype, device=x.device)
    cache[table.long().flatten()] = x.reshape(-1, page_size, hk, d)
    return cache


def sdpa_call(backend, q, k, v):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    gqa = q.shape[2] != k.shape[2]

    def call():
        with sdpa_kernel([which]):
            return F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=gqa)
    return call


def fa4_varlen_func():
    """FlashAttention-4's flash_attn_varlen_func (flash-attn-4, CuTe DSL), or None where it is not
    importable (../shared/anchors/fa4/README.md brings it onto the GPU machines)."""
    try:
        from flash_attn.cute import flash_attn_varlen_func
    except Exception:  # noqa: BLE001 - an absent or broken install: FA4 is left out of the table
        return None
    return flash_attn_varlen_func


def fa4_decode_call(fa4, q, kc, vc, lens, table, num_splits=0):
    """FA4 over the same cache: dense (B, Sk, Hk, D) or pages (num_pages, page, Hk, D) through
    page_table, seqused_k the lengths, num_splits=0 (its split heuristic, as flashcore's 0);
    pack_gqa left to FA4's own choice."""
    def call():
        out = fa4(q, kc, vc, seqused_k=lens, page_table=table, num_splits=num_splits)
        return out[0] if isinstance(out, tuple) else out
    return call


def flashinfer_module():
    """The flashinfer package, or None where it is not importable (bringing it onto the GPU machines:
    docs/results/2026-11-30-h200-session54.md)."""
    try:
        import flashinfer
    except Exception:  # noqa: BLE001 - an absent or broken install: FlashInfer is left out of the table
        return None
    return flashinfer


# FlashInfer's variants: its CUDA-core decode kernel, and its tensor-core path (the prefill kernel
# on one query row a request, what SGLang and vLLM pick for grouped heads).
FLASHINFER_VARIANTS = (("flashinfer", False), ("flashinfer_tc", True))


def flashinfer_decode_call(fi, torch, q, kc, vc, table, use_tensor_cores):
    """FlashInfer's BatchDecodeWithPagedKVCacheWrapper over the same cache: pages (num_pages, page,
    Hk, D) through `table` (its rows as the page indices), or a dense (B, Sk, Hk, D) cache as one page
    of Sk keys a row. Planned once here, outside the captured graph, as a serving loop plans a step
    before replaying it."""
    b, _, hq, d = q.shape
    hk = kc.shape[2]
    dev = q.device
    page_size = kc.shape[1]
    if table is None:
        indices, pages_per_row = torch.arange(b, dtype=torch.int32, device=dev), 1
    else:
        indices, pages_per_row = table.flatten().to(torch.int32), table.shape[1]
    indptr = torch.arange(b + 1, dtype=torch.int32, device=dev) * pages_per_row
    last_page_len = torch.full((b,), page_size, dtype=torch.int32, device=dev)  # every row fills its pages
    workspace = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    wrapper = fi.BatchDecodeWithPagedKVCacheWrapper(workspace, "NHD", use_tensor_cores=use_tensor_cores)
    wrapper.plan(indptr, indices, last_page_len, hq, hk, d, page_size, q_data_type=q.dtype, kv_data_type=kc.dtype)
    q_rows = q.view(b, hq, d)

    def call():
        return wrapper.run(q_rows, (kc, vc)).view(b, 1, hq, d)
    return call


def decode_rows(args, torch, flashcore, results, bw, dtype):
    fa4 = fa4_varlen_func() if args.fa4 else None
    if args.fa4:
        print("FlashAttention-4: %s" % ("flash_attn.cute.flash_attn_varlen_func" if fa4 else "not importable"),
              flush=True)
    fi = flashinfer_module() if args.flashinfer else None
    if args.flashinfer:
        print("FlashInfer: %s" % (getattr(fi, "__version__", "?") if fi else "not importable"), flush=True)
    gen = torch.Generator().manual_seed(0)
    for (b, hq, hk, sk) in DECODE_ROWS:
        d = args.head_dim
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=dtype)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
        lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
        floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
        row = {"shape": "B%d Hq%d Hk%d k%d d%d" % (b, hq, hk, sk, d), "floor_us": floor_us, "us": {}, "errors": {}}
        ref = None
        for backend in ("flash", "cudnn"):
            try:
                call = sdpa_call(backend, q, k, v)
                out = call().transpose(1, 2)
                ref = out if ref is None else ref
                row["us"][backend] = graph_time_us(call, args.calls, args.reps)
            except Exception as e:  # noqa: BLE001 - a backend refusing a shape is data
                row["errors"][backend] = str(e)[:300]
        for layout in LAYOUTS:
            if layout == "contig":
                kc, vc, table = k, v, None
            else:
                ps = int(layout[4:])
                table = page_table(b, sk, ps, gen, "cuda")
                kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
            splits = {}
            for ns in [0] + (args.sweep_splits if layout == "contig" and b * hk < 132 else []):
                def call(ns=ns):
                    return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table,
                                                             num_splits=ns)
                out = call()
                if ref is not None:
                    row["errors"]["flashcore_%s_maxdiff" % layout] = (out.float() - ref.float()).abs().max().item()
                splits[ns] = graph_time_us(call, args.calls, args.reps)
            row["us"]["flashcore_" + layout] = splits[0]
            if len(splits) > 1:
                row["split_sweep_us"] = {str(kk): vv for kk, vv in splits.items()}
            if fa4 is not None:
                try:
                    call = fa4_decode_call(fa4, q, kc, vc, lens, table)
                    try:
                        out = call()
                    except Exception as e:  # noqa: BLE001
                        # 4.0.0b36 on sm90: "SplitKV not supported on SM 9.0" where its heuristic
                        # splits (the B1 rows): what an FA4 user gets there is the unsplit kernel.
                        if "SplitKV not supported" not in str(e):
                            raise
                        row["errors"]["fa4_%s_split_refused" % layout] = str(e)[:300]
                        call = fa4_decode_call(fa4, q, kc, vc, lens, table, num_splits=1)
                        out = call()
                    if ref is not None:
                        row["errors"]["fa4_%s_maxdiff" % layout] = (out.float() - ref.float()).abs().max().item()
                    row["us"]["fa4_" + layout] = graph_time_us(call, args.calls, args.reps)
                except Exception as e:  # noqa: BLE001 - FA4 refusing a layout is data
                    row["errors"]["fa4_" + layout] = str(e)[:300]
            for variant, tensor_cores in FLASHINFER_VARIANTS if fi is not None else ():
                name = "%s_%s" % (variant, layout)
                try:
                    call = flashinfer_decode_call(fi, torch, q, kc, vc, table, tensor_cores)
                    out = call()
                    if ref is not None:
                        row["errors"][name + "_maxdiff"] = (out.float() - ref.float()).abs().max().item()
                    row["us"][name] = graph_time_us(call, args.calls, args.reps)
                except Exception as e:  # noqa: BLE001 - FlashInfer refusing a layout is data
                    row["errors"][name] = str(e)[:300]
            del kc, vc
        results.append(row)
        cells = ["%-26s" % row["shape"], "floor %7.1f" % floor_us]
        names = ["flashcore_" + l for l in LAYOUTS] + (["fa4_" + l for l in LAYOUTS] if fa4 else [])
        names += ["%s_%s" % (v, l) for v, _ in FLASHINFER_VARIANTS for l in LAYOUTS] if fi else []
        for name in names + ["flash", "cudnn"]:
            us = row["us"].get(name)
            cells.append("%s %s" % (name, "%7.1f us %5.1f%%" % (us, 100 * floor_us / us) if us else "-"))
        print(" | ".join(cells), flush=True)
        if "split_sweep_us" in row:
            print("    splits sweep (contig, us): %s" % row["split_sweep_us"], flush=True)
        del q, k, v
        torch.cuda.empty_cache()


def split_candidates(b, hk, sms):
    """Split counts timed beside the heuristic (0) on rows that leave SMs idle: one CTA per SM
    (the heuristic's pick) and two per SM."""
    tiles = b * hk  # one query block per kv head at q 1 token and <= 16 packed rows
    if tiles * 10 >= sms * 8:
        return [0]
    return sorted({0, sms // tiles, 2 * sms // tiles})


def split_ab(args, torch, flashcore, results, bw, dtype):
    """Split counts per layout (contiguous, page 16, page 256), interleaved per row in one process
    on the same tensors: each round times every (layout, splits) cell once, the median of the
    rounds is kept."""
    gen = torch.Generator().manual_seed(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for (b, hq, hk, sk) in DECODE_ROWS:
        d = args.head_dim
        q = torch.randn(b, 1, hq, d, device="cuda", dtype=dtype)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
        lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
        floor_us = b * sk * hk * d * 2 * 2 / bw * 1e6
        ref = flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=1).float()
        caches = {"contig": (k, v, None)}
        for ps in (16, 256):
            table = page_table(b, sk, ps, gen, "cuda")
            caches["page%d" % ps] = (scatter_pages(k, table, ps), scatter_pages(v, table, ps), table)
        cells = [(layout, ns, kc, vc, table) for layout, (kc, vc, table) in caches.items()
                 for ns in split_candidates(b, hk, sms)]
        times = {c[:2]: [] for c in cells}
        maxdiff = {}
        for _ in range(args.ab_rounds):
            for (layout, ns, kc, vc, table) in cells:
                def call(kc=kc, vc=vc, table=table, ns=ns):
                    return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table,
                                                             num_splits=ns)
                out = call().float()
                key = (layout, ns)
                maxdiff[key] = max(maxdiff.get(key, 0.0), (out - ref).abs().max().item())
                times[key].append(graph_time_us(call, args.calls, args.reps))
        shape = "B%d Hq%d Hk%d k%d d%d" % (b, hq, hk, sk, d)
        row = {"shape": shape, "floor_us": floor_us, "cells": []}
        print("%s | floor %.1f us" % (shape, floor_us), flush=True)
        for key, ts in times.items():
            med = sorted(ts)[len(ts) // 2]
            row["cells"].append({"layout": key[0], "num_splits": key[1], "us": med, "rounds_us": ts,
                                 "pct_floor": 100 * floor_us / med, "maxdiff_vs_unsplit": maxdiff[key]})
            print("    %-8s splits %-4s %8.1f us %5.1f%%  (rounds %s; maxdiff %.2g)" % (
                key[0], key[1] if key[1] else "heur", med, 100 * floor_us / med,
                " ".join("%.1f" % t for t in ts), maxdiff[key]), flush=True)
        results.append(row)
        del q, k, v, caches, ref
        torch.cuda.empty_cache()


def chunked_prefill(args, torch, flashcore, results, dtype):
    # S_new 512 into a 16k cache (the cache already holds the new keys: no append is timed),
    # Hq32 Hk8 d128, causal bottom-right. FLOPs: 4 * D * Hq * sum over query rows of keys seen.
    b, sq, hq, hk, d, sk = 1, 512, 32, 8, 128, 16384
    q = torch.randn(b, sq, hq, d, device="cuda", dtype=dtype)
    k = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
    v = torch.randn(b, sk, hk, d, device="cuda", dtype=dtype)
    lens = torch.full((b,), sk, dtype=torch.int32, device="cuda")
    flops = 4 * d * hq * sum(sk - sq + i + 1 for i in range(sq)) * b
    row = {"shape": "chunked prefill B1 S_new512 k16384 Hq32 Hk8 d128 causal", "us": {}, "tflops": {}, "errors": {}}

    def kv():
        return flashcore.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, causal=True)
    out_kv = kv()
    row["us"]["flashcore_kvcache"] = graph_time_us(kv, args.calls, args.reps)
    try:
        flashcore.attention(q, k, v, causal=True)
        kr, vr = k, v
        row["plain_forward_gqa"] = True
    except Exception:  # noqa: BLE001 - a build without GQA in the plain forward: same FLOPs, expanded heads
        kr, vr = k.repeat_interleave(hq // hk, 2), v.repeat_interleave(hq // hk, 2)
        row["plain_forward_gqa"] = False

    def plain():
        return flashcore.attention(q, kr, vr, causal=True)
    out_plain = plain()
    row["errors"]["kvcache_vs_plain_maxdiff"] = (out_kv.float() - out_plain.float()).abs().max().item()
    row["us"]["flashcore_plain_fwd"] = graph_time_us(plain, args.calls, args.reps)
    for name, us in row["us"].items():
        row["tflops"][name] = flops / us / 1e6
    row["ratio_kvcache_over_plain"] = row["tflops"]["flashcore_kvcache"] / row["tflops"]["flashcore_plain_fwd"]
    print("%s | kvcache %.1f us %.0f TF/s | plain fwd %.1f us %.0f TF/s | ratio %.2f | maxdiff %.3g" % (
        row["shape"], row["us"]["flashcore_kvcache"], row["tflops"]["flashcore_kvcache"],
        row["us"]["flashcore_plain_fwd"], row["tflops"]["flashcore_plain_fwd"], row["ratio_kvcache_over_plain"],
        row["errors"]["kvcache_vs_plain_maxdiff"]), flush=True)
    # The same keys in shuffled pages: the default route (sm90a: the forward's paged loads) and the
    # decode kernel forced, where the build has the switch.
    from flashcore import kvcache
    gen = torch.Generator().manual_seed(5)
    for ps in (16, 256):
        table = page_table(b, sk, ps, gen, "cuda")
        kc, vc = scatter_pages(k, table, ps), scatter_pages(v, table, ps)
        routes = [("", None)] + ([("_decode_kernel", False)] if hasattr(kvcache, "_set_forced_forward") else [])
        for suffix, forced in routes:
            name = "flashcore_kvcache_page%d%s" % (ps, suffix)
            if forced is not None:
                kvcache._set_forced_forward(forced)
            try:
                def paged(kc=kc, vc=vc, table=table):
                    return flashcore.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=lens, block_table=table, causal=True)
                row["errors"][name + "_vs_plain_maxdiff"] = (paged().float() - out_plain.float()).abs().max().item()
                row["us"][name] = graph_time_us(paged, args.calls, args.reps)
            finally:
                if forced is not None:
                    kvcache._set_forced_forward(None)
            row["tflops"][name] = flops / row["us"][name] / 1e6
            print("    %-40s %8.1f us %5.0f TF/s  %.2f of the plain forward  (maxdiff %.3g)" % (
                name, row["us"][name], row["tflops"][name], row["tflops"][name] / row["tflops"]["flashcore_plain_fwd"],
                row["errors"][name + "_vs_plain_maxdiff"]), flush=True)
        del kc, vc
    results.append(row)


def paged_varlen_routes(args, torch, flashcore, results, dtype):
    # Packed batches over a paged cache (16 sequences of 4096 keys, Hq32 Hk8 d128, causal): the
    # forward against the decode kernel at equal query rows per sequence, per page size, for the
    # routing rule (kvcache.PAGED_MIN_QUERY_ROWS). Times in us (CUDA-graph replay).
    from flashcore import kvcache
    b, hq, hk, d, sk = 16, 32, 8, 128, 4096
    for ps in args.route_pages:
        gen = torch.Generator().manual_seed(9)
        table = page_table(b, sk, ps, gen, "cuda")
        kc = scatter_pages(torch.randn(b, sk, hk, d, device="cuda", dtype=dtype), table, ps)
        vc = scatter_pages(torch.randn(b, sk, hk, d, device="cuda", dtype=dtype), table, ps)
        used = torch.full((b,), sk, dtype=torch.int32, device="cuda")
        print("paged varlen, %d sequences of %d keys, page %d, Hq%d Hk%d d%d causal: forward / decode kernel" % (
            b, sk, ps, hq, hk, d), flush=True)
        for rows in args.route_rows:
            q = torch.randn(b * rows, hq, d, device="cuda", dtype=dtype)
            cu = torch.arange(0, b * rows + 1, rows, dtype=torch.int32, device="cuda")
            out = torch.empty_like(q)
            row = {"shape": "paged varlen B%d q%d k%d page%d Hq%d Hk%d d%d causal" % (b, rows, sk, ps, hq, hk, d),
                   "us": {}}
            outs = {}
            for name, forced in (("forward", True), ("decode_kernel", False)):
                kvcache._set_forced_forward(forced)
                try:
                    def call():
                        kvcache.paged_attention_varlen_into(q, kc, vc, table, used, cu, rows, out, None,
                                                            softmax_scale=d ** -0.5, causal=True)
                    call()
                    outs[name] = out.clone()
                    row["us"][name] = graph_time_us(call, args.calls, args.reps)
                finally:
                    kvcache._set_forced_forward(None)
            row["maxdiff"] = (outs["forward"].float() - outs["decode_kernel"].float()).abs().max().item()
            results.append(row)
            print("    q %4d rows a sequence: forward %8.1f us, decode kernel %8.1f us, forward/decode %.2f "
                  "(maxdiff %.3g)" % (rows, row["us"]["forward"], row["us"]["decode_kernel"],
                                      row["us"]["forward"] / row["us"]["decode_kernel"], row["maxdiff"]), flush=True)
        del kc, vc


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out_dir", default="/tmp/decode_bench")
    p.add_argument("--calls", type=int, default=20, help="calls per captured graph")
    p.add_argument("--head_dim", type=int, default=128,
                   help="head dim of the decode rows (issue 16's are 128; the KV cache takes multiples of 8 to 256)")
    p.add_argument("--reps", type=int, default=10, help="graph replays timed (median)")
    p.add_argument("--sweep_splits", default="2,4,6,8,12,16,24,32,64",
                   help="extra num_splits timed on the rows that leave SMs idle (contiguous)")
    p.add_argument("--fa4", action="store_true",
                   help="also FlashAttention-4 (flash_attn.cute.flash_attn_varlen_func, page_table for paged "
                        "caches) on every decode row and layout, where importable")
    p.add_argument("--flashinfer", action="store_true",
                   help="also FlashInfer's BatchDecodeWithPagedKVCacheWrapper (CUDA-core and tensor-core kernels) on "
                        "every decode row and layout, where importable")
    p.add_argument("--no_prefill", action="store_true")
    p.add_argument("--prefill_only", action="store_true", help="only the chunked prefill rows and the paged varlen routes")
    p.add_argument("--routes_only", action="store_true", help="only the paged varlen routing rows")
    p.add_argument("--route_pages", default="16", help="page sizes of the paged varlen routing rows")
    p.add_argument("--route_rows", default="1,8,16,32,64,128,256", help="query rows a sequence of those rows")
    p.add_argument("--split_ab", action="store_true",
                   help="time the heuristic, one-CTA-per-SM and two-CTAs-per-SM split counts of every layout "
                        "interleaved per row instead of the backend table; no SDPA, no prefill")
    p.add_argument("--ab_rounds", type=int, default=3, help="interleaved rounds of --split_ab (median kept)")
    args = p.parse_args(argv)
    args.sweep_splits = [int(x) for x in args.sweep_splits.split(",") if x]
    args.route_pages = [int(x) for x in args.route_pages.split(",") if x]
    args.route_rows = [int(x) for x in args.route_rows.split(",") if x]
    return args


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    import torch
    import flashcore
    name = torch.cuda.get_device_name()
    bw = hbm_bandwidth(name)
    print("decode benchmark on %s (floor at %.2f TB/s), torch %s" % (name, bw / 1e12, torch.__version__), flush=True)
    results = []
    if args.split_ab:
        split_ab(args, torch, flashcore, results, bw, torch.bfloat16)
        os.makedirs(args.out_dir, exist_ok=True)
        with open(os.path.join(args.out_dir, "decode_split_ab.json"), "w") as f:
            json.dump({"device": name, "hbm_bytes_per_s": bw, "torch": torch.__version__, "rows": results}, f, indent=1)
        return 0
    if not (args.prefill_only or args.routes_only):
        decode_rows(args, torch, flashcore, results, bw, torch.bfloat16)
    if not (args.no_prefill or args.routes_only):
        chunked_prefill(args, torch, flashcore, results, torch.bfloat16)
    if not args.no_prefill:
        paged_varlen_routes(args, torch, flashcore, results, torch.bfloat16)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "decode.json"), "w") as f:
        json.dump({"device": name, "hbm_bytes_per_s": bw, "torch": torch.__version__, "rows": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
