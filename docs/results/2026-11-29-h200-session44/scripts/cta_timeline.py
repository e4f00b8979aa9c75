"""Reads the per-CTA stamps of bwd_cta_trace.diff (FLASHCORE_BWD_CTA_TRACE_FILE) and says where a
backward main kernel's SM time goes: each CTA's prologue (entry -> K / V landed -> the first Q / dO
stage landed), its steps, its epilogue (loop end -> dK / dV stored), the wait for the producer /
dQ writer, and the gap on its SM before the next CTA starts; per-SM idle time at the kernel's end.
clock64 is per SM, so intra-SM spans use it; globaltimer (ns) aligns SMs for the tail.
Usage: cta_timeline.py FILE [FILE...]"""
import statistics
import struct
import sys

F = ["smid", "steps", "c_entry", "g_entry", "c_kv", "c_first", "c_loop", "c_epi0", "c_epi1", "c_writer",
     "g_epi", "c_prod", "c_first_instr", "unused"]


def load(path):
    with open(path, "rb") as f:
        hdr = struct.unpack("8i", f.read(32))
        n_ctas, n_fields, grid, d, bm, bn, causal = hdr[:7]
        raw = f.read()
    vals = struct.unpack(f"{n_ctas * n_fields}q", raw)
    rows = []
    for i in range(min(grid, n_ctas)):
        r = dict(zip(F, vals[i * n_fields:(i + 1) * n_fields]))
        r["i"] = i
        rows.append(r)
    return dict(grid=grid, d=d, bm=bm, bn=bn, causal=causal), rows


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def report(path):
    meta, rows = load(path)
    rows = [r for r in rows if r["steps"] > 0 and r["c_entry"] > 0 and r["c_epi0"] > 0]
    for r in rows:
        r["end"] = max(r["c_epi0"], r["c_epi1"], r["c_writer"], r["c_prod"])
    by_sm = {}
    for r in rows:
        by_sm.setdefault(r["smid"], []).append(r)
    gaps = []
    for sm, rs in by_sm.items():
        rs.sort(key=lambda r: r["c_entry"])
        for a, b in zip(rs, rs[1:]):
            gaps.append(b["c_entry"] - a["end"])
    pro_kv = [r["c_kv"] - r["c_entry"] for r in rows]
    pro_first = [r["c_first"] - r["c_entry"] for r in rows]
    loop = [r["c_loop"] - r["c_first"] for r in rows]
    epi = [r["c_epi0"] - r["c_loop"] for r in rows]
    after = [r["end"] - r["c_epi0"] for r in rows]
    total = [r["end"] - r["c_entry"] for r in rows]
    # loop time against steps: a least-squares line (a per-CTA constant inside the loop + per step)
    xs = [r["steps"] for r in rows]
    n = len(xs)
    mx, my = sum(xs) / n, sum(loop) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, loop)) / sxx if sxx else float("nan")
    a = my - b * mx
    g0 = min(r["g_entry"] for r in rows)
    g1 = max(r["g_epi"] for r in rows)
    last_per_sm = [max(r["g_epi"] for r in rs) for rs in by_sm.values()]
    first_per_sm = [min(r["g_entry"] for r in rs) for rs in by_sm.values()]
    span_c = {sm: max(r["end"] for r in rs) - min(r["c_entry"] for r in rs) for sm, rs in by_sm.items()}
    busy_c = {sm: sum(r["end"] - r["c_entry"] for r in rs) for sm, rs in by_sm.items()}
    print(f"== {path}: d{meta['d']} {meta['bm']}x{meta['bn']} causal={meta['causal']} grid {meta['grid']}, "
          f"{len(rows)} CTAs on {len(by_sm)} SMs, {sum(xs)} steps")
    print(f"  kernel span (globaltimer) {(g1 - g0) / 1e3:.1f} us; SMs start within {(max(first_per_sm) - g0) / 1e3:.2f} us,"
          f" end from {(min(last_per_sm) - g0) / 1e3:.1f} to {(g1 - g0) / 1e3:.1f} us "
          f"(median {(med(last_per_sm) - g0) / 1e3:.1f})")
    sum_total = sum(total)
    print("  per CTA, clocks (median; share of all CTAs' SM time):")
    for name, xs_ in (("entry -> K/V landed", pro_kv), ("entry -> first Q/dO landed", pro_first),
                      ("steps (first landed -> loop end)", loop), ("epilogue (loop end -> dK/dV stored)", epi),
                      ("then producer / writer done", after), ("CTA total", total)):
        print(f"    {name:40s} {med(xs_):9.0f}   {sum(xs_) / sum_total:6.1%}")
    print(f"    gap to the next CTA on the SM          {med(gaps):9.0f}   {sum(gaps) / sum_total:6.1%} (of CTA time)")
    pre = [r["c_entry"] - r["c_first_instr"] for r in rows if r["c_first_instr"] > 0]
    if pre:
        print(f"    (of which first instruction -> entry stamp: {med(pre):.0f})")
    print(f"  loop clocks = {a:.0f} + {b:.0f} x steps (least squares over CTAs; steps {min(xs)}..{max(xs)})")
    print(f"  SM busy / SM span (clock64, per SM, median): {med([busy_c[s] / span_c[s] for s in by_sm]):.3f}")
    by_steps = {}
    for r, l in zip(rows, loop):
        by_steps.setdefault(r["steps"], []).append(l)
    print("  loop clocks by steps: " + ", ".join(f"{k}: {med(v):.0f} ({med(v) / k:.0f}/step)"
                                                for k, v in sorted(by_steps.items())))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        report(p)
