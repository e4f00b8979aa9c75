"""Attention benchmark, report: the per-row records (timings, ratios, correctness), the text
tables, the JSON and the plots, and the environment they record. Imports no heavy module at the
top (matplotlib and torch inside the functions that need them)."""

import dataclasses
import datetime
import json
import math
import os
import platform
import re

from attention_backends import _error_text, fa4_status, is_flashcore
from attention_config import (ALWAYS_RATIOS, BACKENDS, DEFAULT_TOLERANCE, DTYPES, HOST_RATIO_KEYS,
                              KERNEL_RATIO_KEYS, RATIO_KEY, RATIO_LABELS, Shape, feature_baseline,
                              mode_flops, shape_flops, shape_key, tflops, varlen_lengths)

HOST_BOUND_FACTOR = 1.5
_COPY_KERNEL_RE = re.compile(r"copy|memcpy|contiguous|transpose", re.IGNORECASE)
_SHAPE_FIELDS = tuple(f.name for f in dataclasses.fields(Shape))

# --- Records ---------------------------------------------------------------------------------


def new_record(shape, backends, tolerance=DEFAULT_TOLERANCE, mode="fwd"):
    rec = dataclasses.asdict(shape)
    rec["heads_kv"] = shape.kv_heads
    rec["features"] = shape.features()
    if shape.varlen:
        lengths = varlen_lengths(shape)
        rec["varlen_lengths"] = lengths
        rec["tokens"] = sum(lengths)
    else:
        rec["tokens"] = shape.batch * shape.seqlen
    rec["mode"] = mode
    rec["flops"] = mode_flops(shape_flops(shape), mode)
    rec.update(reference=None, reference_error=None, max_abs_err=None, tolerance=tolerance,
               correct=None, error=None)
    rec["backends"] = {
        b: {"ms": None, "tflops": None, "error": None, "max_abs_err": None,
            "kernels": None, "copy_kernels": None, "profiled_gpu_ms": None, "kernel_us": None,
            "profiled_tflops": None, "graph_ms": None, "graph_tflops": None, "host_us": None,
            "host_calls": None, "within_tolerance": None, "unsupported": None}
        for b in backends}
    rec[RATIO_KEY] = None
    for key in (*KERNEL_RATIO_KEYS.values(), *HOST_RATIO_KEYS.values()):
        rec[key] = None
    rec["forced_arch"] = None
    return rec


def record_shape(r):
    return Shape(**{k: r[k] for k in _SHAPE_FIELDS if k in r})


def set_graph_timing(rec, backend, ms):
    """Kernel-only time (CUDA-graph replay) of one call, ms."""
    entry = rec["backends"][backend]
    entry["graph_ms"] = ms
    entry["graph_tflops"] = tflops(rec["flops"], ms)
    _set_ratios(rec)


def set_host_timing(rec, backend, us, calls):
    """Wall time per call over `calls` back-to-back calls, microseconds."""
    entry = rec["backends"][backend]
    entry["host_us"] = us
    entry["host_calls"] = calls
    _set_ratios(rec)


def _set_ratios(rec):
    b = rec["backends"]
    fc = b.get("flashcore")
    for other, key in KERNEL_RATIO_KEYS.items():
        theirs = b.get(other, {}).get("graph_tflops")
        mine = fc.get("graph_tflops") if fc else None
        rec[key] = mine / theirs if mine is not None and theirs else None
    for other, key in HOST_RATIO_KEYS.items():
        theirs = b.get(other, {}).get("host_us")
        mine = fc.get("host_us") if fc else None
        rec[key] = mine / theirs if mine is not None and theirs else None


def set_timing(rec, backend, ms):
    entry = rec["backends"][backend]
    entry["ms"] = ms
    entry["tflops"] = tflops(rec["flops"], ms)
    rec[RATIO_KEY] = speed_ratio(rec)


def speed_ratio(rec):
    b = rec["backends"]
    if "flashcore" not in b or "cudnn" not in b:
        return None
    fc, cd = b["flashcore"]["tflops"], b["cudnn"]["tflops"]
    if fc is None or not cd:
        return None
    return fc / cd


def _within(err, tolerance):
    return bool(math.isfinite(err) and err <= tolerance)


def judge_correctness(rec):
    """Sets every backend's within_tolerance (its max abs error against the reference, NaN
    fails), and rec["correct"]: flashcore's. None when flashcore was not run or there was no
    reference to compare with."""
    for entry in rec["backends"].values():
        if entry.get("max_abs_err") is not None:
            entry["within_tolerance"] = _within(entry["max_abs_err"], rec["tolerance"])
    fc = rec["backends"].get("flashcore")
    if fc is None:
        rec["correct"] = None
    elif fc["error"] is not None:
        rec["correct"] = False  # flashcore must run every shape of these grids
    elif rec["max_abs_err"] is None:
        rec["correct"] = None
    else:
        rec["correct"] = _within(rec["max_abs_err"], rec["tolerance"])
    return rec["correct"]


def failures(records):
    """Human-readable failure lines for the shapes that exit the benchmark non-zero."""
    out = []
    for r in records:
        if r["correct"] is False or r.get("error"):
            fc = r["backends"].get("flashcore", {})
            why = r.get("error") or fc.get("error") or f"max_abs_err {r['max_abs_err']!r} > {r['tolerance']}"
            out.append(f"{shape_label(r)}: {why}")
    return out


def shape_label(r):
    c = "causal" if r["causal"] else "noncausal"
    feats = r.get("features") or []
    model = f"{r['model']}: " if r.get("model") else ""
    return model + f"{r['dtype']} D{r['head_dim']} {c} S{r['seqlen']} B{r['batch']} H{r['heads']}" + (
        " " + " ".join(feats) if feats else "")


def record_sort_key(r):
    return record_shape(r).sort_key()


def host_bound(entry):
    """True when do_bench's time is well above the profiled kernel time: the shape is too small
    for one timed call to hide the host's launch overhead, so its TFLOP/s understate the kernel."""
    ms, gpu_ms = entry.get("ms"), entry.get("profiled_gpu_ms")
    return bool(ms and gpu_ms and ms > HOST_BOUND_FACTOR * gpu_ms)


def copy_kernel_names(kernel_names):
    return [k for k in kernel_names if _COPY_KERNEL_RE.search(k)]


# --- Tables ----------------------------------------------------------------------------------

def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


def ratio_backends(backends):
    """The backends flashcore gets ratio columns against: cudnn and FA2 always, FA4 when run."""
    return [b for b in KERNEL_RATIO_KEYS if b in ALWAYS_RATIOS or b in backends]


def _align(head, rows, left):
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
              for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(row) for row in rows])


def format_table(records, backends):
    """One text table: a row per shape; TFLOP/s per backend ('err' where it raised, 'n/a' where it
    cannot run the row), kernel-only TFLOP/s, us/call, flashcore's ratios to cudnn, FA2 (and FA4
    when run), flashcore's max abs error and notes (FAIL, ERROR, wrong(backend) for another backend
    off the reference, copy!(backend), host-bound(backends) where do_bench's time exceeds 1.5x the
    profiled kernel time)."""
    others = ratio_backends(backends)
    head = ["dtype", "D", "causal", "S", "B", "H", "feature"] + [f"{b} TF/s" for b in backends]
    head += [f"{b} kTF/s" for b in backends] + [f"{b} us/call" for b in backends]
    head += [f"fc/{RATIO_LABELS[o]}" for o in others] + [f"host fc/{RATIO_LABELS[o]}" for o in others]
    head += ["max_err", "notes"]
    rows = []
    for r in sorted(records, key=record_sort_key):
        row = [r["dtype"], str(r["head_dim"]), "yes" if r["causal"] else "no",
               str(r["seqlen"]), str(r["batch"]), str(r["heads"]),
               ",".join(([r["model"]] if r.get("model") else []) + (r.get("features") or [])) or "-"]
        notes = []
        for b in backends:
            e = r["backends"].get(b)
            if e is None:
                row.append("-")
            elif e["tflops"] is not None:
                row.append(f"{e['tflops']:.1f}")
            elif e.get("unsupported"):
                row.append("n/a")
            elif e["error"] is not None:
                row.append("err")
            else:
                row.append("-")
            if e is not None and e.get("copy_kernels"):
                notes.append(f"copy!({b})")
            if e is not None and not is_flashcore(b) and e.get("within_tolerance") is False:
                notes.append(f"wrong({b})")
        for key, spec in (("graph_tflops", ".1f"), ("host_us", ".1f")):
            for b in backends:
                row.append(_fmt(r["backends"].get(b, {}).get(key), spec))
        slow = [b for b in backends if b in r["backends"] and host_bound(r["backends"][b])]
        if slow:
            notes.append("host-bound(" + ",".join(slow) + ")")
        if r.get("forced_arch"):
            notes.append(f"forced:{r['forced_arch']}(not timed)")
        for keys in (KERNEL_RATIO_KEYS, HOST_RATIO_KEYS):
            for o in others:
                row.append(_fmt(r.get(keys[o]), ".2f"))
        err = r.get("max_abs_err")
        row.append("nan" if err is not None and not math.isfinite(err) else _fmt(err, ".1e"))
        if r.get("correct") is False:
            notes.insert(0, "FAIL")
        if r.get("error"):
            notes.insert(0, "ERROR")
        row.append(" ".join(notes))
        rows.append(row)
    return _align(head, rows, {0, 6, len(head) - 1})


def feature_costs(records, backends):
    """Each feature row's kernel-only TFLOP/s over its plain row's (feature_baseline), per
    backend that ran both: [{label, baseline, ratios: {backend: ratio}}]."""
    by_key = {shape_key(record_shape(r)): r for r in records}
    out = []
    for r in sorted(records, key=record_sort_key):
        base_key = feature_baseline(record_shape(r))
        base = by_key.get(base_key) if base_key is not None else None
        if base is None:
            continue
        ratios = {}
        for b in backends:
            mine = r["backends"].get(b, {}).get("graph_tflops")
            theirs = base["backends"].get(b, {}).get("graph_tflops")
            ratios[b] = mine / theirs if mine and theirs else None
        out.append({"label": shape_label(r), "baseline": shape_label(base), "ratios": ratios})
    return out


def format_feature_costs(records, backends):
    """The feature-cost table (empty string when no feature row has its plain row beside it)."""
    costs = feature_costs(records, backends)
    if not costs:
        return ""
    head = ["feature row", "against"] + [f"{b} feat/plain" for b in backends]
    rows = [[c["label"], c["baseline"]] + [_fmt(c["ratios"][b], ".3f") for b in backends]
            for c in costs]
    return _align(head, rows, {0, 1})


# --- JSON ------------------------------------------------------------------------------------

def _json_safe(obj):
    """Non-finite floats become strings ("nan", "inf"), so the file is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else str(obj)
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return str(obj)


def write_json(path, env, config, records, skipped=()):
    """Writes {"benchmark", "env", "config", "records", "failures", "feature_costs", "skipped"}
    atomically (a rename)."""
    mode = getattr(config, "mode", None) or (config.get("mode", "fwd") if isinstance(config, dict) else "fwd")
    backends = getattr(config, "backends", None) or (config.get("backends", BACKENDS)
                                                     if isinstance(config, dict) else BACKENDS)
    doc = {
        "benchmark": {"fwd": "attention_forward", "bwd": "attention_backward",
                      "fwd_bwd": "attention_forward_backward"}[mode],
        "env": env,
        "config": dataclasses.asdict(config) if dataclasses.is_dataclass(config) else config,
        "records": records,
        "failures": failures(records),
        "feature_costs": feature_costs(records, backends),
        "skipped": list(skipped),
    }
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_json_safe(doc), f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    return doc


# --- Plots -----------------------------------------------------------------------------------

def _colors():
    return {b: f"C{i}" for i, b in enumerate(BACKENDS + ("flashcore_det",))}


def plot(path, records, backends, title=None):
    """One subplot per (dtype, head_dim, causal): TFLOP/s against seqlen (log2), a line per backend
    over the paper grid; the seed shape (B1 H8) is drawn as stars in the backends' colours. Feature
    rows are left to plot_features."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    records = [r for r in records if r["grid"] in ("paper", "seed")]
    groups = sorted({(r["dtype"], r["head_dim"], r["causal"]) for r in records},
                    key=lambda g: (DTYPES.index(g[0]) if g[0] in DTYPES else 99, g[1], g[2]))
    n = max(1, len(groups))
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False)
    colors = _colors()
    drawn = set()  # backends and grids with at least one point, for the legend
    for ax, (dtype, d, causal) in zip(axes.flat, groups):
        rs = [r for r in records if (r["dtype"], r["head_dim"], r["causal"]) == (dtype, d, causal)]
        for b in backends:
            for grid in ("paper", "seed"):
                pts = sorted((r["seqlen"], r["backends"][b]["tflops"]) for r in rs
                             if r["grid"] == grid and b in r["backends"]
                             and r["backends"][b]["tflops"] is not None)
                if not pts:
                    continue
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                if grid == "paper":
                    ax.plot(xs, ys, "o-", color=colors.get(b), markersize=4)
                else:
                    ax.plot(xs, ys, "*", color=colors.get(b), markersize=10)
                drawn.add(b)
                drawn.add(grid)
        seqlens = sorted({r["seqlen"] for r in rs})
        ax.set_xscale("log", base=2)
        ax.set_xticks(seqlens, [f"{s // 1024}k" if s >= 1024 and s % 1024 == 0 else str(s)
                                for s in seqlens])
        ax.minorticks_off()
        ax.set_title(f"{dtype} D{d} {'causal' if causal else 'non-causal'}", fontsize=10)
        ax.set_xlabel("seqlen")
        ax.set_ylabel("TFLOP/s")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    handles = [Line2D([], [], color=colors.get(b), marker="o", markersize=4, label=b)
               for b in backends if b in drawn]
    if "seed" in drawn:
        handles.append(Line2D([], [], color="gray", marker="*", markersize=10, linestyle="",
                              label="seed shape B1 H8 S512 D64"))
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9,
                   frameon=False)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, 0.05 if nrows > 1 else 0.09, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_features(path, records, backends, title=None):
    """Kernel-only TFLOP/s of the features grid's rows, a bar per backend that ran the row.
    Returns the path, or None when there is no feature row."""
    rs = sorted((r for r in records if r["grid"] == "features"), key=record_sort_key)
    if not rs:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = _colors()
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rs) * max(1, len(backends)) / 2 + 1.5))
    width = 0.8 / max(1, len(backends))
    for i, b in enumerate(backends):
        ys = [j + i * width for j in range(len(rs))]
        xs = [r["backends"].get(b, {}).get("graph_tflops") or 0.0 for r in rs]
        ax.barh(ys, xs, height=width, color=colors.get(b), label=b)
    ax.set_yticks([j + 0.4 - width / 2 for j in range(len(rs))],
                  [f"{r['dtype']} D{r['head_dim']} {'c' if r['causal'] else 'f'} S{r['seqlen']} "
                   f"H{r['heads']}/{r.get('heads_kv') or r['heads']} "
                   + (",".join(r.get("features") or []) or "plain") for r in rs], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("kernel-only TFLOP/s (needed FLOPs)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# --- Environment -----------------------------------------------------------------------------

def collect_env(backends=()):
    import torch
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
    }
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception as e:  # noqa: BLE001 - recorded, timing then fails loudly
        env["triton"] = f"unavailable: {e}"
    if torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name()
        env["gpu_capability"] = list(torch.cuda.get_device_capability())
        env["gpu_count"] = torch.cuda.device_count()
    try:
        import flashcore
        env["flashcore_build_info"] = flashcore.build_info()
    except Exception as e:  # noqa: BLE001
        env["flashcore_build_info"] = None
        env["flashcore_build_info_error"] = _error_text(e)
    if "fa4" in backends:
        env["fa4"] = fa4_status()[1]
    return env
