"""Session 39: where a forward tile's time goes, from clock64 stamps (the diagnostic build of
`dropped/fwd_trace.diff`: FLASHCORE_FWD_TRACE_FILE makes the sm90a forward's launcher zero a
per-(CTA, tile, role) stamp table before the launch and write it to that file after).

For each row: kernel-only time (CUDA-graph replay, the stamps compiled in but not read), then one
traced eager call. Per consumer tile (role 1 + consumer index), from the stamps:
  q    tile top -> Q ready            k0   -> first K ready       turn0 -> first turn
  s0   first Q K^T issued -> S ready  sm0  -> first P converted   loop  -> the other key blocks
  pv   last P V (its V wait, turn and GEMM)                       epi   -> epilogue done
  gap  epilogue done -> next tile's top (scheduler, plan)
and the tile period (top to the next tile's top) fitted against the tile's key blocks:
period = overhead + per_block * blocks (least squares over the CTA's tiles, all CTAs).
Prints one summary per row and saves the raw stamps (npz) beside the log.

    PYTHONPATH=<traced py tree>:tools/bench python3 fwd_timeline.py --out DIR
"""
import argparse
import os

import numpy as np
import torch
import triton.testing as tt

from flashcore import _attention
from attention_config import Shape, varlen_lengths

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--rows", default="all")
ap.add_argument("--rep", type=float, default=30)
ap.add_argument("--no_trace", action="store_true", help="time only (a build without the trace)")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)


def flops(lengths, heads, d, causal):
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lengths)
    return 4 * heads * d * pairs


def rows():
    out = []
    for d in (128, 64, 256, 192):
        out.append(("d%d causal dense S1024" % d, d, [1024] * 16, True, False))
    out.append(("d128 causal dense S16384", 128, [16384], True, False))
    out.append(("d128 full dense S16384", 128, [16384], False, False))
    out.append(("d128 full dense S1024", 128, [1024] * 16, False, False))
    mixed = varlen_lengths(Shape("features", "bf16", 128, True, 4000, 64, 16, varlen="mixed"))
    out.append(("d128 causal packed mixed64", 128, mixed, True, True))
    out.append(("d128 causal packed equal4x4096", 128, [4096] * 4, True, True))
    out.append(("d64 causal packed mixed64", 64, mixed, True, True))
    return out


def read_trace(path):
    raw = np.fromfile(path, dtype=np.int32, count=8)
    ctas, tiles, roles, points, grid, head_dim, block_m, block_n = raw.tolist()
    stamps = np.fromfile(path, dtype=np.int64, offset=32).reshape(ctas, tiles, roles, points)
    return dict(grid=grid, head_dim=head_dim, block_m=block_m, block_n=block_n), stamps[:grid]


def summarize(name, meta, st, ms):
    lines = ["== %s: tile %dx%d, grid %d, kernel %.4f ms" % (name, meta["block_m"], meta["block_n"], meta["grid"], ms)]
    consumers = [r for r in range(1, st.shape[2]) if (st[:, :, r, 8] != 0).any()]
    for r in consumers:
        c = st[:, :, r, :]
        valid = c[:, :, 8] != 0  # tile done
        blocks = (c[:, :, 9] & 0xFFFF).astype(np.float64)
        ph = {
            "q": c[:, :, 1] - c[:, :, 0], "k0": c[:, :, 2] - c[:, :, 1], "turn0": c[:, :, 3] - c[:, :, 2],
            "s0": c[:, :, 4] - c[:, :, 3], "sm0": c[:, :, 5] - c[:, :, 4], "loop": c[:, :, 6] - c[:, :, 5],
            "pv": c[:, :, 7] - c[:, :, 6], "epi": c[:, :, 8] - c[:, :, 7],
        }
        nxt = np.zeros_like(c[:, :, 0])
        nxt[:, :-1] = c[:, 1:, 0]
        has_next = np.zeros_like(valid)
        has_next[:, :-1] = valid[:, 1:]
        ph["gap"] = np.where(has_next, nxt - c[:, :, 8], 0)
        period = np.where(has_next, nxt - c[:, :, 0], 0)
        sel = valid & has_next
        tiles = int(valid.sum())
        span = (c[:, :, 8].max(axis=1) - np.where(valid, c[:, :, 0], np.iinfo(np.int64).max).min(axis=1))
        lines.append("consumer %d: %d tiles (%.1f a CTA), key blocks a tile mean %.2f; CTA span mean %.0f clk" % (
            r - 1, tiles, tiles / st.shape[0], blocks[valid].mean(), span.mean()))
        tot = {k: float(v[sel].sum()) for k, v in ph.items()}
        allp = float(period[sel].sum())
        lines.append("  share of tile periods: " + ", ".join("%s %.1f%%" % (k, 100 * v / allp) for k, v in tot.items()))
        lines.append("  mean clk a tile: " + ", ".join("%s %.0f" % (k, v[sel].mean()) for k, v in ph.items()) +
                     ", period %.0f" % period[sel].mean())
        multi = sel & (blocks > 1)
        if multi.any():
            per_loop_block = ph["loop"][multi] / (blocks[multi] - 1)
            lines.append("  loop clk a key block: median %.0f, mean %.0f; in-loop waits a block: kv %.0f, turn %.0f, S %.0f, PV %.0f" % (
                np.median(per_loop_block), per_loop_block.mean(),
                (c[:, :, 11][multi] / (blocks[multi] - 1)).mean(), (c[:, :, 12][multi] / (blocks[multi] - 1)).mean(),
                (c[:, :, 13][multi] / (blocks[multi] - 1)).mean(), (c[:, :, 14][multi] / (blocks[multi] - 1)).mean()))
        if len(np.unique(blocks[sel])) > 1:
            a = np.stack([np.ones(sel.sum()), blocks[sel]], axis=1)
            coef, *_ = np.linalg.lstsq(a, period[sel].astype(np.float64), rcond=None)
            lines.append("  fit: period = %.0f + %.0f * blocks clk (overhead %.2f key blocks)" % (coef[0], coef[1], coef[0] / coef[1]))
    p = st[:, :, 0, :]
    pv = p[:, :, 4] != 0
    if pv.any() and (p[:, :, 1] != 0).any():  # the build of call 1: Q loaded at the tile's top
        lines.append("producer: q_empty wait %.0f, O store %.0f, first K issue %.0f, rest of tile %.0f clk a tile (means)" % (
            (p[:, :, 1] - p[:, :, 0])[pv].mean(), (p[:, :, 2] - p[:, :, 1])[pv].mean(),
            (p[:, :, 3] - p[:, :, 2])[pv].mean(), (p[:, :, 4] - p[:, :, 3])[pv].mean()))
    elif pv.any():  # Q ahead: point 5 = the next tile's Q issued during this tile
        ahead = pv & (p[:, :, 5] != 0)
        lines.append("producer: next Q loaded ahead in %.1f%% of tiles, %.0f clk after the tile's top, %.0f before its last load (means)" % (
            100 * ahead.sum() / pv.sum(), (p[:, :, 5] - p[:, :, 0])[ahead].mean() if ahead.any() else 0,
            (p[:, :, 4] - p[:, :, 5])[ahead].mean() if ahead.any() else 0))
    return "\n".join(lines)


for name, d, lengths, causal, packed in rows():
    if args.rows != "all" and not any(s in name for s in args.rows.split(",")):
        continue
    heads = 2048 // d
    dt = torch.bfloat16
    n, m = sum(lengths), max(lengths)
    if packed:
        cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
        q, k, v = (torch.randn(n, heads, d, device="cuda", dtype=dt) for _ in range(3))
        fn = lambda: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal, cu_seqlens_q=cu,
                                               cu_seqlens_k=cu, max_seqlen_q=m, max_seqlen_k=m)
    else:
        q, k, v = (torch.randn(len(lengths), m, heads, d, device="cuda", dtype=dt) for _ in range(3))
        fn = lambda: _attention.attention_core(q, k, v, softmax_scale=d ** -0.5, causal=causal)
    fn()
    ms = tt.do_bench_cudagraph(fn, rep=args.rep)
    tf = flops(lengths, heads, d, causal) / ms / 1e9
    if args.no_trace:
        print("untraced %-36s %8.4f ms %7.1f TFLOP/s" % (name, ms, tf), flush=True)
        continue
    path = os.path.join(args.out, name.replace(" ", "_") + ".bin")
    for _ in range(3):  # the last traced call is kept
        os.environ["FLASHCORE_FWD_TRACE_FILE"] = path
        fn()
        torch.cuda.synchronize()
        del os.environ["FLASHCORE_FWD_TRACE_FILE"]
    meta, st = read_trace(path)
    np.savez_compressed(path[:-4] + ".npz", stamps=st, **meta)
    os.remove(path)
    print(summarize("%s (%.1f TFLOP/s)" % (name, tf), meta, st, ms), flush=True)
