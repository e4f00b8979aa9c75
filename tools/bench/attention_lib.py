"""Attention benchmark (forward, backward, or both): flashcore.attention vs torch SDPA backends,
side by side.

Everything of the benchmark lives here; tools/bench/attention.py is the thin absl entry point.
torch, triton, matplotlib and flashcore are imported inside the functions that need them, so the
CPU unit test (attention_lib_test.py) can import this module without a GPU, triton or matplotlib.

Shapes
  paper: the FlashAttention paper grid: 16k tokens in total (batch = 16384 // seqlen), hidden 2048
         (heads = 2048 // head_dim), seqlen 512..16k, head_dim 64/128, causal or not, fp16/bf16.
  seed:  B1 H8 S512 D64, fp16 and bf16, non-causal and causal.

Layout: q, k, v are made contiguous (batch, seqlen, heads, head_dim), as flashcore takes them; torch
SDPA gets q.transpose(1, 2) views of the same storage, (batch, heads, seqlen, head_dim) with unit
stride in head_dim, which its flash/efficient/cuDNN kernels read without a copy. The kernels each
timed function launches are listed once per shape with torch.profiler, and any copy kernel among
them is reported (JSON "copy_kernels", table note "copy!"). The same profile gives each backend's
summed kernel time per call ("profiled_gpu_ms"): do_bench times one call between CUDA events after
an L2 flush, so on tiny shapes (the seed shape) it includes host launch overhead; the profiled
kernel time does not, and shows how much of a small-shape gap is host-side.

Timings per backend, all in one process on the same tensors:
  TF/s     triton do_bench (L2 flushed between calls; one call between CUDA events, so on tiny
           shapes it includes host launch overhead);
  kTF/s    kernel only: triton do_bench_cudagraph (the calls captured in a CUDA graph and
           replayed: no host work between kernels);
  us/call  host-bound: wall time per call over many back-to-back calls, synchronizing only at
           the end (what a small-shape caller pays: Python, dispatch, allocation, launch).
Ratios: fc/cudnn and fc/FA2 of the kernel-only TFLOP/s (higher is better for flashcore), and
host fc/cudnn, host fc/FA2 of the per-call times (lower is better for flashcore).

--rows selects rows: each spec is ':'-separated tokens (paper|seed, fp16|bf16, d64|d128,
causal|full, s<seqlen>) that a row must all match; a row is kept if it matches any spec, e.g.
--rows=seed,bf16:d128:s4096 (the other grid flags still define the candidate rows).
--force_arch runs flashcore through a named kernel library (e.g. sm80_ptx: the portable PTX
build of the sm80 code, which GPUs newer than Hopper run), forward and backward; then flashcore is
checked for correctness only, never timed.

FLOPs (the FlashAttention convention): 4 * B * H * Sq * Sk * D for the forward, halved for causal;
the backward counts 2.5x the forward (5 matmuls to the forward's 2), fwd_bwd 3.5x.

Modes (--mode): fwd times out = attention(q, k, v); bwd times torch.autograd.grad(out, (q, k, v),
dout) on a graph made once outside the timing (retain_graph), i.e. the backward kernels alone;
fwd_bwd times the forward and that backward together. In bwd modes the correctness check is the
max abs error of dq, dk, dv against the reference backend's gradients, divided by the largest
reference gradient magnitude (gradients of N(0, 1) inputs grow with seqlen; a relative figure keeps
one --tolerance meaningful over the grid).
The three timing columns apply to every mode (kTF/s captures the whole call, backward included).
"""

import dataclasses
import datetime
import json
import math
import os
import platform
import re
import warnings

from absl import flags

# --- Constants -------------------------------------------------------------------------------

TOTAL_TOKENS = 16384
HIDDEN = 2048
SEED_SHAPE = {"batch": 1, "heads": 8, "seqlen": 512, "head_dim": 64}

DTYPES = ("fp16", "bf16")
BACKENDS = ("flashcore", "flash", "efficient", "cudnn")
# Opt-in backends (named in --backends, never in the default set): flashcore with
# deterministic=True, to put the deterministic backward's cost beside the fast path.
OPTIONAL_BACKENDS = ("flashcore_det",)
MODES = ("fwd", "bwd", "fwd_bwd")
MODE_FLOP_FACTOR = {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}
SDPA_BACKENDS = ("flash", "efficient", "cudnn")  # torch SDPA backends, in reference order
DEFAULT_SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
DEFAULT_TOLERANCE = 2e-2
RATIO_KEY = "flashcore_over_cudnn"
# Kernel-only TFLOP/s ratios and per-call (host-bound) time ratios; FA2 is torch's flash backend.
KERNEL_RATIO_KEYS = {"cudnn": "kernel_flashcore_over_cudnn", "flash": "kernel_flashcore_over_flash"}
HOST_RATIO_KEYS = {"cudnn": "host_flashcore_over_cudnn", "flash": "host_flashcore_over_flash"}
DEFAULT_HOST_CALLS = 2000
DEFAULT_HOST_BUDGET_MS = 300.0
_ROW_TOKEN_RE = re.compile(r"^(paper|seed|fp16|bf16|d\d+|causal|full|s\d+)$")
JSON_NAME = "attention.json"
PLOT_NAME = "attention.png"
MAX_ERROR_CHARS = 2000
PROFILE_CALLS = 5
HOST_BOUND_FACTOR = 1.5
DEVICE = "cuda"  # the unit test runs the GPU path on "cpu" with a fake flashcore and fake timer

_COPY_KERNEL_RE = re.compile(r"copy|memcpy|contiguous|transpose", re.IGNORECASE)


def _log(*args):
    print(*args, flush=True)


# --- Flags and configuration -----------------------------------------------------------------

def define_flags(flag_values=None):
    """Defines the benchmark's flags on flag_values (absl's global FLAGS by default)."""
    fv = flags.FLAGS if flag_values is None else flag_values
    flags.DEFINE_string(
        "out_dir", None,
        "Where attention.json and attention.png go. Default: $TEST_UNDECLARED_OUTPUTS_DIR if set, "
        "else ./bench_out (relative paths resolve against $BUILD_WORKING_DIRECTORY under bazel run).",
        flag_values=fv)
    flags.DEFINE_enum("mode", "fwd", list(MODES),
                      "fwd: forward only; bwd: the backward alone (dq, dk, dv of a retained graph); "
                      "fwd_bwd: forward + backward. FLOPs: bwd = 2.5x fwd.", flag_values=fv)
    flags.DEFINE_enum("grid", "all", ["paper", "seed", "all"],
                      "paper: FlashAttention paper grid; seed: B1 H8 S512 D64; all: both.",
                      flag_values=fv)
    flags.DEFINE_list("dtypes", list(DTYPES), "Comma list of fp16, bf16 (both grids).",
                      flag_values=fv)
    flags.DEFINE_list("head_dims", ["64", "128"], "Head dims of the paper grid.",
                      flag_values=fv)
    flags.DEFINE_enum("causal", "both", ["both", "true", "false"],
                      "Causal masking (both grids).", flag_values=fv)
    flags.DEFINE_list("seqlens", [str(s) for s in DEFAULT_SEQLENS],
                      "Sequence lengths of the paper grid (batch = max(1, 16384 // seqlen)).",
                      flag_values=fv)
    flags.DEFINE_float("warmup_ms", 50.0, "triton.testing.do_bench warmup, ms.", flag_values=fv)
    flags.DEFINE_float("rep_ms", 200.0, "triton.testing.do_bench repetition time, ms.",
                       flag_values=fv)
    flags.DEFINE_list("backends", list(BACKENDS),
                      "Comma list of flashcore, flash, efficient, cudnn (torch SDPA backends); "
                      "also flashcore_det (deterministic=True), not in the default.",
                      flag_values=fv)
    flags.DEFINE_float("tolerance", DEFAULT_TOLERANCE,
                       "Max abs error of flashcore vs the torch reference before a shape fails.",
                       flag_values=fv)
    flags.DEFINE_integer("seed", 0, "Base RNG seed of the random inputs.", flag_values=fv)
    flags.DEFINE_bool("kernel_timing", True,
                      "Time each backend kernel-only by CUDA-graph replay (do_bench_cudagraph).",
                      flag_values=fv)
    flags.DEFINE_integer("host_calls", DEFAULT_HOST_CALLS,
                         "Back-to-back calls of the host-bound timing (fewer on big shapes, see "
                         "--host_budget_ms); 0 turns it off.", flag_values=fv)
    flags.DEFINE_float("host_budget_ms", DEFAULT_HOST_BUDGET_MS,
                       "Rough GPU time budget per backend and shape of the host-bound timing.",
                       flag_values=fv)
    flags.DEFINE_list("rows", [], "Row filter specs, e.g. seed,bf16:d128:causal:s4096 (see module doc).",
                      flag_values=fv)
    flags.DEFINE_string("force_arch", "",
                        "Test-only: run flashcore through this kernel library (e.g. sm80_ptx); "
                        "flashcore is then checked, not timed.", flag_values=fv)
    flags.DEFINE_bool("profile_kernels", True,
                      "List each timed function's CUDA kernels once per shape (torch.profiler) "
                      "to show that nothing copies inside the timed region.", flag_values=fv)
    return fv


@dataclasses.dataclass(frozen=True)
class Config:
    out_dir: str
    grid: str
    dtypes: tuple
    head_dims: tuple
    causals: tuple
    seqlens: tuple
    warmup_ms: float
    rep_ms: float
    backends: tuple
    tolerance: float
    seed: int
    profile_kernels: bool
    mode: str = "fwd"
    kernel_timing: bool = True
    host_calls: int = DEFAULT_HOST_CALLS
    host_budget_ms: float = DEFAULT_HOST_BUDGET_MS
    rows: tuple = ()
    force_arch: str = ""


class ConfigError(ValueError):
    """A flag value the benchmark cannot use."""


def _parse_choices(values, allowed, what):
    out = []
    for v in values:
        v = v.strip().lower()
        if v not in allowed:
            raise ConfigError(f"unknown {what} {v!r}; expected some of {', '.join(allowed)}")
        if v not in out:
            out.append(v)
    if not out:
        raise ConfigError(f"no {what} given")
    return tuple(out)


def _parse_positive_ints(values, what):
    out = []
    for v in values:
        try:
            n = int(str(v).strip())
        except ValueError:
            raise ConfigError(f"{what} must be integers, got {v!r}") from None
        if n <= 0:
            raise ConfigError(f"{what} must be positive, got {n}")
        if n not in out:
            out.append(n)
    if not out:
        raise ConfigError(f"no {what} given")
    return tuple(out)


def parse_rows(values):
    """--rows specs -> tuple of token tuples; raises ConfigError on an unknown token."""
    out = []
    for spec in values:
        tokens = tuple(t for t in spec.strip().lower().split(":") if t)
        if not tokens:
            continue
        for t in tokens:
            if not _ROW_TOKEN_RE.match(t):
                raise ConfigError(f"unknown --rows token {t!r} in {spec!r}; expected paper, seed, "
                                  "fp16, bf16, d<head_dim>, causal, full or s<seqlen>")
        out.append(tokens)
    return tuple(out)


def row_matches(shape, tokens):
    """True when the shape matches every token of one --rows spec."""
    for t in tokens:
        if t in ("paper", "seed"):
            ok = shape.grid == t
        elif t in DTYPES:
            ok = shape.dtype == t
        elif t == "causal":
            ok = shape.causal
        elif t == "full":
            ok = not shape.causal
        elif t[0] == "d":
            ok = shape.head_dim == int(t[1:])
        else:  # s<seqlen>
            ok = shape.seqlen == int(t[1:])
        if not ok:
            return False
    return True


def parse_causal(value):
    return {"both": (False, True), "true": (True,), "false": (False,)}[value]


def resolve_out_dir(flag_value, environ=None):
    """--out_dir, else $TEST_UNDECLARED_OUTPUTS_DIR, else bench_out; relative paths are taken
    against $BUILD_WORKING_DIRECTORY (set by `bazel run`) when present."""
    environ = os.environ if environ is None else environ
    path = flag_value or environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or "bench_out"
    if not os.path.isabs(path) and environ.get("BUILD_WORKING_DIRECTORY"):
        path = os.path.join(environ["BUILD_WORKING_DIRECTORY"], path)
    return path


def config_from_flags(fv, environ=None):
    """Validates parsed flags into a Config; raises ConfigError on a bad value."""
    head_dims = _parse_positive_ints(fv.head_dims, "head_dims")
    for d in head_dims:
        if HIDDEN % d:
            raise ConfigError(f"head_dim {d} does not divide the hidden size {HIDDEN}")
    if fv.warmup_ms <= 0 or fv.rep_ms <= 0:
        raise ConfigError("--warmup_ms and --rep_ms must be positive")
    if not fv.tolerance > 0:
        raise ConfigError("--tolerance must be positive")
    if fv.host_calls < 0 or not fv.host_budget_ms > 0:
        raise ConfigError("--host_calls must be >= 0 and --host_budget_ms positive")
    return Config(
        out_dir=resolve_out_dir(fv.out_dir, environ),
        grid=fv.grid,
        dtypes=_parse_choices(fv.dtypes, DTYPES, "dtype"),
        head_dims=head_dims,
        causals=parse_causal(fv.causal),
        seqlens=_parse_positive_ints(fv.seqlens, "seqlens"),
        warmup_ms=float(fv.warmup_ms),
        rep_ms=float(fv.rep_ms),
        backends=_parse_choices(fv.backends, BACKENDS + OPTIONAL_BACKENDS, "backend"),
        tolerance=float(fv.tolerance),
        seed=int(fv.seed),
        profile_kernels=bool(fv.profile_kernels),
        mode=fv.mode,
        kernel_timing=bool(fv.kernel_timing),
        host_calls=int(fv.host_calls),
        host_budget_ms=float(fv.host_budget_ms),
        rows=parse_rows(fv.rows),
        force_arch=fv.force_arch.strip(),
    )


# --- Shapes and FLOPs ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Shape:
    grid: str
    dtype: str
    head_dim: int
    causal: bool
    seqlen: int
    batch: int
    heads: int

    def sort_key(self):
        return (DTYPES.index(self.dtype), self.head_dim, self.causal, self.seqlen,
                self.grid != "paper", self.batch, self.heads)


def paper_shapes(dtypes, head_dims, causals, seqlens):
    return [Shape("paper", dt, d, c, s, max(1, TOTAL_TOKENS // s), HIDDEN // d)
            for dt in dtypes for d in head_dims for c in causals for s in seqlens]


def seed_shapes(dtypes, causals):
    s = SEED_SHAPE
    return [Shape("seed", dt, s["head_dim"], c, s["seqlen"], s["batch"], s["heads"])
            for dt in dtypes for c in causals]


def make_grid(config):
    shapes = []
    if config.grid in ("paper", "all"):
        shapes += paper_shapes(config.dtypes, config.head_dims, config.causals, config.seqlens)
    if config.grid in ("seed", "all"):
        shapes += seed_shapes(config.dtypes, config.causals)
    rows = getattr(config, "rows", ())
    if rows:
        shapes = [sh for sh in shapes if any(row_matches(sh, spec) for spec in rows)]
    unique = {}
    for sh in shapes:
        unique.setdefault((sh.dtype, sh.head_dim, sh.causal, sh.seqlen, sh.batch, sh.heads), sh)
    return sorted(unique.values(), key=Shape.sort_key)


def attention_flops(batch, heads, seqlen_q, seqlen_k, head_dim, causal):
    """Forward FLOPs, FlashAttention convention: 2 matmuls of 2*Sq*Sk*D each, halved if causal."""
    flops = 4 * batch * heads * seqlen_q * seqlen_k * head_dim
    return flops // 2 if causal else flops


def mode_flops(forward_flops, mode):
    """FLOPs of one timed call in `mode`: the backward counts 2.5x the forward (FA papers)."""
    return int(forward_flops * MODE_FLOP_FACTOR[mode])


def json_name(mode):
    return JSON_NAME if mode == "fwd" else f"attention_{mode}.json"


def plot_name(mode):
    return PLOT_NAME if mode == "fwd" else f"attention_{mode}.png"


def tflops(flops, ms):
    if ms is None or not ms > 0 or not math.isfinite(ms):
        return None
    return flops / (ms * 1e-3) / 1e12


# --- Records ---------------------------------------------------------------------------------

def new_record(shape, backends, tolerance=DEFAULT_TOLERANCE, mode="fwd"):
    rec = dataclasses.asdict(shape)
    rec["mode"] = mode
    rec["flops"] = mode_flops(attention_flops(shape.batch, shape.heads, shape.seqlen, shape.seqlen,
                                              shape.head_dim, shape.causal), mode)
    rec.update(reference=None, reference_error=None, max_abs_err=None, tolerance=tolerance,
               correct=None, error=None)
    rec["backends"] = {
        b: {"ms": None, "tflops": None, "error": None, "max_abs_err": None,
            "kernels": None, "copy_kernels": None, "profiled_gpu_ms": None,
            "profiled_tflops": None, "graph_ms": None, "graph_tflops": None, "host_us": None,
            "host_calls": None}
        for b in backends}
    rec[RATIO_KEY] = None
    for key in (*KERNEL_RATIO_KEYS.values(), *HOST_RATIO_KEYS.values()):
        rec[key] = None
    rec["forced_arch"] = None
    return rec


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


def judge_correctness(rec):
    """Sets rec["correct"]: flashcore's max abs error within tolerance (NaN fails). None when
    flashcore was not run or there was no reference to compare with."""
    fc = rec["backends"].get("flashcore")
    if fc is None:
        rec["correct"] = None
    elif fc["error"] is not None:
        rec["correct"] = False  # flashcore must run every shape of these grids
    elif rec["max_abs_err"] is None:
        rec["correct"] = None
    else:
        err = rec["max_abs_err"]
        rec["correct"] = bool(math.isfinite(err) and err <= rec["tolerance"])
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
    return f"{r['dtype']} D{r['head_dim']} {c} S{r['seqlen']} B{r['batch']} H{r['heads']}"


def record_sort_key(r):
    return Shape(**{f.name: r[f.name] for f in dataclasses.fields(Shape)}).sort_key()


def host_bound(entry):
    """True when do_bench's time is well above the profiled kernel time: the shape is too small
    for one timed call to hide the host's launch overhead, so its TFLOP/s understate the kernel."""
    ms, gpu_ms = entry.get("ms"), entry.get("profiled_gpu_ms")
    return bool(ms and gpu_ms and ms > HOST_BOUND_FACTOR * gpu_ms)


def copy_kernel_names(kernel_names):
    return [k for k in kernel_names if _COPY_KERNEL_RE.search(k)]


# --- Table -----------------------------------------------------------------------------------

def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


def format_table(records, backends):
    """One text table: a row per shape; TFLOP/s per backend ('err' where it raised), the
    flashcore/cudnn ratio, flashcore's max abs error and notes (FAIL, ERROR, copy!(backend),
    host-bound(backends) where do_bench's time exceeds 1.5x the profiled kernel time)."""
    head = ["dtype", "D", "causal", "S", "B", "H"] + [f"{b} TF/s" for b in backends]
    head += [f"{b} kTF/s" for b in backends] + [f"{b} us/call" for b in backends]
    head += ["fc/cudnn", "fc/FA2", "host fc/cudnn", "host fc/FA2", "max_err", "notes"]
    rows = []
    for r in sorted(records, key=record_sort_key):
        row = [r["dtype"], str(r["head_dim"]), "yes" if r["causal"] else "no",
               str(r["seqlen"]), str(r["batch"]), str(r["heads"])]
        notes = []
        for b in backends:
            e = r["backends"].get(b)
            if e is None:
                row.append("-")
            elif e["tflops"] is not None:
                row.append(f"{e['tflops']:.1f}")
            elif e["error"] is not None:
                row.append("err")
            else:
                row.append("-")
            if e is not None and e.get("copy_kernels"):
                notes.append(f"copy!({b})")
        for key, spec in (("graph_tflops", ".1f"), ("host_us", ".1f")):
            for b in backends:
                row.append(_fmt(r["backends"].get(b, {}).get(key), spec))
        slow = [b for b in backends if b in r["backends"] and host_bound(r["backends"][b])]
        if slow:
            notes.append("host-bound(" + ",".join(slow) + ")")
        if r.get("forced_arch"):
            notes.append(f"forced:{r['forced_arch']}(not timed)")
        for key in (KERNEL_RATIO_KEYS["cudnn"], KERNEL_RATIO_KEYS["flash"], HOST_RATIO_KEYS["cudnn"],
                    HOST_RATIO_KEYS["flash"]):
            row.append(_fmt(r.get(key), ".2f"))
        err = r.get("max_abs_err")
        row.append("nan" if err is not None and not math.isfinite(err) else _fmt(err, ".1e"))
        if r.get("correct") is False:
            notes.insert(0, "FAIL")
        if r.get("error"):
            notes.insert(0, "ERROR")
        row.append(" ".join(notes))
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
              for i, h in enumerate(head)]
    left = {0, len(head) - 1}  # dtype and notes left-aligned, numbers right-aligned

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(head), line(["-" * w for w in widths])]
    out += [line(row) for row in rows]
    return "\n".join(out)


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


def write_json(path, env, config, records):
    """Writes {"benchmark", "env", "config", "records", "failures"} atomically (a rename)."""
    mode = getattr(config, "mode", None) or (config.get("mode", "fwd") if isinstance(config, dict) else "fwd")
    doc = {
        "benchmark": {"fwd": "attention_forward", "bwd": "attention_backward",
                      "fwd_bwd": "attention_forward_backward"}[mode],
        "env": env,
        "config": dataclasses.asdict(config) if dataclasses.is_dataclass(config) else config,
        "records": records,
        "failures": failures(records),
    }
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_json_safe(doc), f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    return doc


# --- Plot ------------------------------------------------------------------------------------

def plot(path, records, backends, title=None):
    """One subplot per (dtype, head_dim, causal): TFLOP/s against seqlen (log2), a line per backend
    over the paper grid; the seed shape (B1 H8) is drawn as stars in the backends' colours."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    groups = sorted({(r["dtype"], r["head_dim"], r["causal"]) for r in records},
                    key=lambda g: (DTYPES.index(g[0]) if g[0] in DTYPES else 99, g[1], g[2]))
    n = max(1, len(groups))
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.4 * nrows), squeeze=False)
    colors = {b: f"C{i}" for i, b in enumerate(BACKENDS)}
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


# --- Environment -----------------------------------------------------------------------------

def collect_env():
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
    return env


# --- GPU side --------------------------------------------------------------------------------

def _error_text(exc, caught_warnings=()):
    text = f"{type(exc).__name__}: {exc}"
    reasons = [str(w.message) for w in caught_warnings]
    if reasons:
        text += " | warnings: " + " | ".join(reasons)
    return text[:MAX_ERROR_CHARS]


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _torch_dtype(name):
    import torch
    return {"fp16": torch.float16, "bf16": torch.bfloat16}[name]


def _sdpa_enum(backend):
    from torch.nn.attention import SDPBackend
    return {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}[backend]


def make_inputs(shape, seed, mode="fwd"):
    """Fresh N(0, 1) q, k, v, contiguous (batch, seqlen, heads, head_dim); in bwd modes they
    require grad, and a fourth tensor dout (same shape) is returned too."""
    import torch
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    size = (shape.batch, shape.seqlen, shape.heads, shape.head_dim)
    n = 3 if mode == "fwd" else 4
    ts = [torch.randn(size, device=DEVICE, dtype=_torch_dtype(shape.dtype), generator=gen) for _ in range(n)]
    if mode != "fwd":
        for t in ts[:3]:
            t.requires_grad_(True)
    return tuple(ts)


def make_fn(backend, q, k, v, causal, mode="fwd", dout=None):
    """The timed callable. Everything it needs (views, flags) is made here, outside the timing:
    flashcore gets the contiguous tensors; SDPA gets transpose views of the same storage.
    bwd: the forward runs once here (under the backend) and the callable returns
    torch.autograd.grad(out, (q, k, v), dout) on the retained graph; fwd_bwd: both, per call.
    In bwd modes q, k, v must require grad and dout is (batch, seqlen, heads, head_dim)."""
    if _is_flashcore(backend):
        import flashcore
        deterministic = backend == "flashcore_det"

        def forward():
            return flashcore.attention(q, k, v, causal=causal, deterministic=deterministic)
    else:
        import torch.nn.functional as F

        def forward():
            out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                 is_causal=causal)
            return out.transpose(1, 2)  # (B, S, H, D) like flashcore's, a view

        if mode == "fwd":
            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            return lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
    if mode == "fwd":
        return forward
    import torch
    if mode == "fwd_bwd":
        return lambda: torch.autograd.grad(forward(), (q, k, v), dout)
    with backend_context(backend):
        out = forward()
    return lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)


def backend_context(backend):
    """Forces one SDPA backend for the calls made inside; a no-op for flashcore."""
    import contextlib
    if _is_flashcore(backend):
        return contextlib.nullcontext()
    from torch.nn.attention import sdpa_kernel
    return sdpa_kernel(_sdpa_enum(backend))


def to_bhsd(out, backend):
    """flashcore returns (B, S, H, D); SDPA returns (B, H, S, D). A view, for comparison.
    Gradients (a tuple: dq, dk, dv of the same (B, S, H, D) leaves for every backend) pass as is."""
    if isinstance(out, tuple):
        return out
    return out.transpose(1, 2) if _is_flashcore(backend) else out


def _is_flashcore(backend):
    return backend in ("flashcore",) + OPTIONAL_BACKENDS


def call_once(backend, fn):
    """Runs fn once under its backend; returns (out, None) or (None, error text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with backend_context(backend):
                out = fn()
            _sync()
            return out, None
        except Exception as e:  # noqa: BLE001 - an unsupported backend is a result, not a crash
            return None, _error_text(e, caught)


def fp32_reference(q, k, v, causal):
    """Last-resort reference: SDPA math backend in fp32, one (batch, head) at a time."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    B, S, H, D = q.shape
    out = torch.empty((B, H, S, D), device=q.device, dtype=torch.float32)
    with sdpa_kernel(SDPBackend.MATH):
        for b in range(B):
            for h in range(H):
                qs, ks, vs = (t[b, :, h].float()[None, None] for t in (q, k, v))
                out[b, h] = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)[0, 0]
    return out


def compute_reference(q, k, v, causal, mode="fwd", dout=None):
    """torch SDPA output (B, H, S, D) (bwd modes: its gradients dq, dk, dv) from the first of
    flash, efficient, cudnn that runs, else fp32 math. Returns (out, backend name, errors of the
    backends that raised)."""
    errors = {}
    for backend in SDPA_BACKENDS:
        try:
            with backend_context(backend):
                fn = make_fn(backend, q, k, v, causal, mode, dout)
        except Exception as e:  # noqa: BLE001 - bwd mode runs the forward in make_fn
            errors[backend] = _error_text(e)
            continue
        out, err = call_once(backend, fn)
        if err is None:
            return out, backend, errors
        errors[backend] = err
    if mode == "fwd":
        return fp32_reference(q, k, v, causal), "math_fp32", errors
    return fp32_reference_grads(q, k, v, causal, dout), "math_fp32", errors


def fp32_reference_grads(q, k, v, causal, dout):
    """Last-resort gradient reference: SDPA math in fp32, one (batch, head) at a time."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    grads = [torch.empty(t.shape, device=t.device, dtype=torch.float32) for t in (q, k, v)]
    B, S, H, D = q.shape
    with sdpa_kernel(SDPBackend.MATH):
        for b in range(B):
            for h in range(H):
                qs, ks, vs = (t.detach()[b, :, h].float()[None, None].requires_grad_(True) for t in (q, k, v))
                out = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
                gs = torch.autograd.grad(out, (qs, ks, vs), dout[b, :, h].float()[None, None])
                for dst, g in zip(grads, gs):
                    dst[b, :, h] = g[0, 0]
    return tuple(grads)


def max_abs_err(out_bhsd, ref_bhsd):
    """Max abs error; for gradient tuples, the max over dq, dk, dv of max abs error divided by the
    largest reference magnitude of that gradient."""
    if isinstance(out_bhsd, tuple):
        if len(out_bhsd) != len(ref_bhsd):
            raise ValueError(f"{len(out_bhsd)} gradients != reference's {len(ref_bhsd)}")
        errs = []
        for o, r in zip(out_bhsd, ref_bhsd):
            scale = max(r.float().abs().max().item(), 1e-30)
            errs.append(max_abs_err(o, r) / scale)
        return max(errs)
    if tuple(out_bhsd.shape) != tuple(ref_bhsd.shape):
        raise ValueError(f"output shape {tuple(out_bhsd.shape)} != reference "
                         f"{tuple(ref_bhsd.shape)}")
    return (out_bhsd.float() - ref_bhsd.float()).abs().max().item()


def profile_kernels(backend, fn, calls=PROFILE_CALLS):
    """Runs fn `calls` times under torch.profiler. Returns (names of the CUDA kernels, memsets and
    memcpys it launches, their summed GPU duration per call in ms). That duration excludes launch
    overhead and L2 flushing, so it is a cross-check of do_bench for small shapes, not a result."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Profiler clears events at the end of each cycle"
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with backend_context(backend):
                for _ in range(calls):
                    fn()
            torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    gpu_us = sum(e.time_range.elapsed_us() for e in events)
    return sorted({e.name for e in events}), gpu_us / 1e3 / calls


def time_ms(backend, fn, warmup_ms, rep_ms):
    from triton.testing import do_bench
    with backend_context(backend):
        return float(do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median"))


def graph_time_ms(backend, fn, rep_ms):
    """Kernel-only time per call: fn's calls captured in a CUDA graph and replayed."""
    from triton.testing import do_bench_cudagraph  # captures on a side stream of its own
    with backend_context(backend):
        return float(do_bench_cudagraph(fn, rep=rep_ms, return_mode="median"))


def host_calls_for(config, est_ms):
    """How many back-to-back calls: --host_calls, fewer where one call is long (the budget)."""
    if not config.host_calls:
        return 0
    if est_ms is None or not est_ms > 0:
        return config.host_calls
    return max(10, min(config.host_calls, int(config.host_budget_ms / est_ms)))


def host_time_us(backend, fn, calls, now=None):
    """Wall time per call over `calls` back-to-back calls; one synchronize, at the end."""
    import time
    now = now or time.perf_counter
    with backend_context(backend):
        for _ in range(max(3, calls // 20)):  # warm: caches, allocator, lazy init
            fn()
        _sync()
        t0 = now()
        for _ in range(calls):
            fn()
        _sync()
        return (now() - t0) / calls * 1e6


def run_shape(shape, config, seed):
    """Checks and times every backend on one shape; never raises for a backend's failure."""
    mode = config.mode
    rec = new_record(shape, config.backends, config.tolerance, mode)
    rec["forced_arch"] = forced_arch(config)
    inputs = make_inputs(shape, seed, mode)
    q, k, v = inputs[:3]
    dout = inputs[3] if mode != "fwd" else None
    ref, rec["reference"], ref_errors = compute_reference(q, k, v, shape.causal, mode, dout)
    if ref_errors:
        rec["reference_error"] = ref_errors
    for backend in config.backends:
        _run_backend(rec, backend, q, k, v, ref, shape.causal, config, dout)
    if "flashcore" in rec["backends"]:
        rec["max_abs_err"] = rec["backends"]["flashcore"]["max_abs_err"]
    judge_correctness(rec)
    del q, k, v, ref, inputs, dout
    _free_memory()
    return rec


def _free_memory():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _run_backend(rec, backend, q, k, v, ref, causal, config, dout=None):
    """One backend on one shape: a checked call, its kernel list, then the timing. Each failure
    is written into rec["backends"][backend]["error"] and ends that backend's work."""
    entry = rec["backends"][backend]
    try:
        with backend_context(backend):  # bwd mode runs the forward here
            fn = make_fn(backend, q, k, v, causal, config.mode, dout)  # flashcore not importable -> error
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    out, entry["error"] = call_once(backend, fn)
    if out is None:
        return
    try:
        if config.mode == "fwd" and isinstance(out, tuple):
            out = out[0]
        entry["max_abs_err"] = max_abs_err(to_bhsd(out, backend), ref)
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    finally:
        del out
    if _is_flashcore(backend) and rec.get("forced_arch"):
        return  # a forced (test-only) kernel library: correctness only, never timed
    if config.profile_kernels:
        try:
            entry["kernels"], entry["profiled_gpu_ms"] = profile_kernels(backend, fn)
            entry["profiled_tflops"] = tflops(rec["flops"], entry["profiled_gpu_ms"])
            entry["copy_kernels"] = copy_kernel_names(entry["kernels"])
        except Exception as e:  # noqa: BLE001 - the listing is a diagnostic, not a result
            entry["kernels_error"] = _error_text(e)
    try:
        set_timing(rec, backend, time_ms(backend, fn, config.warmup_ms, config.rep_ms))
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    if config.kernel_timing:
        try:
            set_graph_timing(rec, backend, graph_time_ms(backend, fn, config.rep_ms))
        except Exception as e:  # noqa: BLE001 - recorded beside the other timings
            entry["graph_error"] = _error_text(e)
    calls = host_calls_for(config, entry["ms"])
    if calls:
        try:
            set_host_timing(rec, backend, host_time_us(backend, fn, calls), calls)
        except Exception as e:  # noqa: BLE001
            entry["host_error"] = _error_text(e)


def forced_arch(config):
    """The kernel library flashcore is forced through (--force_arch or FLASHCORE_FORCE_ARCH), or
    None. Applies --force_arch to flashcore; needs flashcore only when forcing."""
    name = getattr(config, "force_arch", "") or os.environ.get("FLASHCORE_FORCE_ARCH", "")
    if not name or "flashcore" not in config.backends:
        return None
    from flashcore import _attention
    if _attention._forced_arch != name:
        _attention._set_forced_arch(name)
    return name


def run(config, log=_log):
    """The whole benchmark: returns (env, records). attention.json is rewritten after every
    shape, so a run cut short still leaves its results."""
    import torch
    if DEVICE == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("no CUDA device: this benchmark runs on a GPU machine")
    os.makedirs(config.out_dir, exist_ok=True)
    env = collect_env()
    json_path = os.path.join(config.out_dir, json_name(config.mode))
    shapes = make_grid(config)
    log(f"mode {config.mode}: {len(shapes)} shapes x {len(config.backends)} backends on {env.get('gpu')}; "
        f"torch {env['torch']}, triton {env['triton']}, cudnn {env['cudnn']}")
    records = []
    for i, shape in enumerate(shapes):
        try:
            rec = run_shape(shape, config, config.seed + i)
        except Exception as e:  # noqa: BLE001 - e.g. OOM making inputs; record and go on
            rec = new_record(shape, config.backends, config.tolerance, config.mode)
            rec["error"] = _error_text(e)
            rec["correct"] = False
            try:
                _free_memory()
            except Exception:  # noqa: BLE001 - a dead CUDA context fails every later shape too
                pass
        records.append(rec)
        done = "  ".join(f"{b} {_fmt(rec['backends'][b]['tflops'], '.1f')}"
                         f"/k{_fmt(rec['backends'][b]['graph_tflops'], '.1f')}"
                         f"/{_fmt(rec['backends'][b]['host_us'], '.1f')}us" for b in config.backends)
        log(f"[{i + 1}/{len(shapes)}] {shape_label(rec)}: {done}  err {rec['max_abs_err']}"
            + ("  FAIL" if rec["correct"] is False else ""))
        write_json(json_path, env, config, records)
    return env, records


def main(config, log=_log):
    """Runs, prints the table, writes attention.json and attention.png. Returns the exit code:
    1 if flashcore failed or was wrong on any shape, else 0."""
    env, records = run(config, log)
    log("")
    log(format_table(records, config.backends))
    json_path = os.path.join(config.out_dir, json_name(config.mode))
    write_json(json_path, env, config, records)
    png_path = os.path.join(config.out_dir, plot_name(config.mode))
    what = {"fwd": "forward", "bwd": "backward", "fwd_bwd": "forward + backward"}[config.mode]
    try:
        plot(png_path, records, config.backends,
             title=f"attention {what}, {env.get('gpu')}, torch {env['torch']}")
        log(f"wrote {json_path} and {png_path}")
    except Exception as e:  # noqa: BLE001 - the JSON is the result; the plot is a view of it
        log(f"wrote {json_path}; plot failed: {_error_text(e)}")
    bad = failures(records)
    for line in bad:
        log(f"FAIL {line}")
    return 1 if bad else 0
