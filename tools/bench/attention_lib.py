"""Attention benchmark (forward, backward, or both): flashcore vs torch SDPA backends and
FlashAttention-4, side by side, every backend in one process on the same tensors.

tools/bench/attention.py is the thin absl entry point; the benchmark is split by concern:
  attention_config.py    constants, flags, Config, the --rows grammar, the grids (paper, seed,
                         features, models) and the FLOPs each row needs;
  attention_models.py    the models grid's layers (open models' head counts, windows, sinks);
  attention_backends.py  inputs, each backend's timed callable, which backend runs which row, the
                         references and the error measure;
  attention_timing.py    do_bench (eager), CUDA-graph replay (kernel only), host-bound us/call;
  attention_report.py    records, ratios, tables, JSON, plots, environment;
  attention_lib.py       (this file) the per-row driver and main; it re-exports the names above
                         (attention_lib.X keeps working).
torch, triton, matplotlib, flashcore and FlashAttention-4 are imported inside the functions that
need them, so the CPU unit test (attention_lib_test.py) imports all of this without a GPU.

Per row and backend: a checked call (its max abs error against the reference; every backend is
judged, flashcore's decides the exit code), the kernels it launches (torch.profiler, once; any copy
kernel is reported: JSON "copy_kernels", table note "copy!"; their summed time "profiled_gpu_ms"
shows how much of a small-shape gap is host-side, and "kernel_us" each kernel's share of a call),
then the three timings of attention_timing.
Ratios: fc/cudnn, fc/FA2 (torch's flash backend) and fc/FA4 of the kernel-only TFLOP/s (higher is
better for flashcore), and host fc/... of the per-call times (lower is better for flashcore).
fa4 is used when `from flash_attn.cute import flash_attn_func` works; otherwise the run says so
once and leaves its columns out (never a number it did not measure). A backend that cannot run a
row (torch SDPA: window, softcap, packed batches) is left out of it, the reason in the log and the
JSON ("unsupported").

Modes (--mode): fwd times out = attention(q, k, v); bwd times torch.autograd.grad(out, (q, k, v),
dout) on a graph made once outside the timing (retain_graph), i.e. the backward kernels alone;
fwd_bwd times the forward and that backward together. In bwd modes the error is the max abs error
of dq, dk, dv against the reference's gradients, divided by the largest reference gradient
magnitude (gradients of N(0, 1) inputs grow with seqlen; a relative figure keeps one --tolerance
meaningful over the grid). The eager and host timings apply to every mode, the kernel-only
(CUDA-graph) one to fwd only (KERNEL_TIMED_MODES).

--force_arch runs flashcore through a named kernel library (e.g. sm80_ptx: the portable PTX build
of the sm80 code, which GPUs newer than Hopper run), forward and backward; then flashcore is
checked for correctness only, never timed. --time_budget_s bounds a run (rows left are listed as
skipped; the JSON is rewritten after every row, so a run cut short keeps what it measured).
--warm_only calls each backend once per row (FlashAttention-4 JIT-compiles each configuration on
its first call) and stops; with --shard=i/n (contiguous blocks of rows) several processes can
share that work.
"""

import dataclasses
import os
import time

# Re-exported: the entry point and the tests use attention_lib.X.
from attention_backends import (DEVICE, FA4_MODULE, Inputs, _error_text, _sync, backend_context,  # noqa: F401
                                call_once, canonical, compute_reference, fa4_status, fp32_reference,
                                is_flashcore, make_fn, make_inputs, max_abs_err, profile_kernels,
                                unsupported_reason)
from attention_config import *  # noqa: F401,F403
from attention_config import _log, ConfigError, define_flags, config_from_flags, make_grid  # noqa: F401
from attention_report import *  # noqa: F401,F403
from attention_report import (_fmt, collect_env, copy_kernel_names, failures, format_feature_costs,  # noqa: F401
                              format_table, judge_correctness, new_record, plot, plot_features,
                              set_graph_timing, set_host_timing, set_timing, shape_label)
from attention_timing import graph_time_ms, host_calls_for, host_time_us, time_ms  # noqa: F401
import attention_backends
from attention_config import json_name, plot_name, tflops



# CUDA-graph (kernel-only) timing runs in fwd mode only. A backward captured through autograd
# failed with cudaErrorStreamCaptureInvalidated for every backend (flashcore, FA4, cuDNN, FA2) on
# the H100 twice on 2026-11-23 -- first with the forward on the default stream, then with it made
# on torch.cuda.graph's capture stream -- and each failed capture kept its graph memory pool, so a
# 48-row backward grid ran out of the 80 GB after 14 rows. The backward's figures are the eager
# (autograd) ones, which is what the issues' bars ask for.
KERNEL_TIMED_MODES = ("fwd",)

def run_shape(shape, config, seed):
    """Checks and times every backend on one shape; never raises for a backend's failure."""
    mode = config.mode
    rec = new_record(shape, config.backends, config.tolerance, mode)
    rec["forced_arch"] = forced_arch(config)
    inp = make_inputs(shape, seed, mode)
    ref, rec["reference"], ref_errors = compute_reference(inp, shape, mode, getattr(config, "reference", "sdpa"))
    if ref_errors:
        rec["reference_error"] = ref_errors
    for backend in config.backends:
        _run_backend(rec, backend, inp, shape, ref, config)
    if "flashcore" in rec["backends"]:
        rec["max_abs_err"] = rec["backends"]["flashcore"]["max_abs_err"]
    judge_correctness(rec)
    del inp, ref
    _free_memory()
    return rec


def _free_memory():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _run_backend(rec, backend, inp, shape, ref, config):
    """One backend on one shape: a checked call, its kernel list, then the timing. Each failure
    is written into rec["backends"][backend]["error"] and ends that backend's work; a backend that
    cannot run the row gets "unsupported" (the reason) and nothing else."""
    entry = rec["backends"][backend]
    why = unsupported_reason(backend, shape)
    if why:
        entry["unsupported"] = why
        return
    try:
        with backend_context(backend):  # bwd mode runs the forward here
            fn = make_fn(backend, inp, shape, config.mode)  # a backend not importable -> error
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    out, entry["error"] = call_once(backend, fn)
    if out is None:
        return
    try:
        entry["max_abs_err"] = max_abs_err(canonical(out, backend), ref)
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    finally:
        del out
    if is_flashcore(backend) and rec.get("forced_arch"):
        return  # a forced (test-only) kernel library: correctness only, never timed
    if config.profile_kernels:
        try:
            entry["kernels"], entry["profiled_gpu_ms"], entry["kernel_us"] = profile_kernels(backend, fn)
            entry["profiled_tflops"] = tflops(rec["flops"], entry["profiled_gpu_ms"])
            entry["copy_kernels"] = copy_kernel_names(entry["kernels"])
        except Exception as e:  # noqa: BLE001 - the listing is a diagnostic, not a result
            entry["kernels_error"] = _error_text(e)
    try:
        set_timing(rec, backend, time_ms(backend, fn, config.warmup_ms, config.rep_ms))
    except Exception as e:  # noqa: BLE001
        entry["error"] = _error_text(e)
        return
    if config.kernel_timing and config.mode in KERNEL_TIMED_MODES:
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


def resolve_backends(config, log=_log):
    """The config with the backends this run can use: fa4 only when importable (said once,
    otherwise, and left out: no column, no number)."""
    if "fa4" not in config.backends:
        return config
    mod, what = fa4_status()
    if mod is not None:
        log(f"fa4: FlashAttention-4 from {FA4_MODULE}: {what}")
        return config
    log(f"fa4: FlashAttention-4 is {what}; its columns are left out of this run")
    return dataclasses.replace(config, backends=tuple(b for b in config.backends if b != "fa4"))


def _row_log(rec, backends):
    parts = []
    for b in backends:
        e = rec["backends"][b]
        if e.get("unsupported"):
            parts.append(f"{b} n/a")
        else:
            parts.append(f"{b} {_fmt(e['tflops'], '.1f')}/k{_fmt(e['graph_tflops'], '.1f')}"
                         f"/{_fmt(e['host_us'], '.1f')}us")
    return "  ".join(parts)


def _log_row_problems(rec, backends, log):
    """Says in the log why a backend has no number on this row (once per row)."""
    for b in backends:
        e = rec["backends"][b]
        if e.get("unsupported"):
            log(f"    {b} left out: {e['unsupported']}")
        elif e.get("error"):
            log(f"    {b} error: {e['error'][:300]}")
        elif e.get("within_tolerance") is False:
            log(f"    {b} off the reference: max_abs_err {e['max_abs_err']!r} > {rec['tolerance']}")


def warm(config, log=_log):
    """--warm_only: each backend called once per row (JIT compile), timed by the host clock."""
    shapes = make_grid(config)
    log(f"warm-up ({config.mode}): {len(shapes)} shapes x {len(config.backends)} backends")
    for i, shape in enumerate(shapes):
        try:
            inp = make_inputs(shape, config.seed + i, config.mode)
        except Exception as e:  # noqa: BLE001 - best effort: the benchmark proper reports it
            log(f"[warm {i + 1}/{len(shapes)}] inputs failed: {_error_text(e)[:200]}")
            continue
        parts = []
        for backend in config.backends:
            if unsupported_reason(backend, shape):
                continue
            t0 = time.perf_counter()
            try:
                with backend_context(backend):
                    fn = make_fn(backend, inp, shape, config.mode)
                _, err = call_once(backend, fn)
            except Exception as e:  # noqa: BLE001
                err = _error_text(e)
            parts.append(f"{backend} {time.perf_counter() - t0:.1f}s" + (f" ({err[:200]})" if err else ""))
        log(f"[warm {i + 1}/{len(shapes)}] {shape_label(new_record(shape, ()))}: " + "  ".join(parts))
        del inp
        _free_memory()
    return 0


def run(config, log=_log):
    """The whole benchmark: returns (env, records, skipped shape labels). The JSON is rewritten
    after every shape, so a run cut short still leaves its results."""
    import torch
    if attention_backends.DEVICE == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("no CUDA device: this benchmark runs on a GPU machine")
    os.makedirs(config.out_dir, exist_ok=True)
    env = collect_env(config.backends)
    json_path = os.path.join(config.out_dir, json_name(config.mode))
    shapes = make_grid(config)
    log(f"mode {config.mode}: {len(shapes)} shapes x {len(config.backends)} backends on {env.get('gpu')}; "
        f"torch {env['torch']}, triton {env['triton']}, cudnn {env['cudnn']}")
    records, skipped = [], []
    start = time.monotonic()
    for i, shape in enumerate(shapes):
        if i and config.time_budget_s and time.monotonic() - start > config.time_budget_s:
            skipped = [shape_label(new_record(sh, ())) for sh in shapes[i:]]
            log(f"time budget of {config.time_budget_s:g} s spent: {len(skipped)} rows skipped")
            write_json(json_path, env, config, records, skipped)
            break
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
        log(f"[{i + 1}/{len(shapes)}] {shape_label(rec)}: {_row_log(rec, config.backends)}  "
            f"err {rec['max_abs_err']}" + ("  FAIL" if rec["correct"] is False else ""))
        _log_row_problems(rec, config.backends, log)
        write_json(json_path, env, config, records)
    return env, records, skipped


def main(config, log=_log):
    """Runs, prints the tables, writes the JSON and the plots. Returns the exit code: 1 if
    flashcore failed or was wrong on any shape, else 0."""
    config = resolve_backends(config, log)
    if config.warm_only:
        return warm(config, log)
    env, records, skipped = run(config, log)
    log("")
    log(format_table(records, config.backends))
    costs = format_feature_costs(records, config.backends)
    if costs:
        log("")
        log("feature cost (kernel-only TFLOP/s of the feature row over its plain row):")
        log(costs)
    json_path = os.path.join(config.out_dir, json_name(config.mode))
    write_json(json_path, env, config, records, skipped)
    png_path = os.path.join(config.out_dir, plot_name(config.mode))
    what = {"fwd": "forward", "bwd": "backward", "fwd_bwd": "forward + backward"}[config.mode]
    title = f"attention {what}, {env.get('gpu')}, torch {env['torch']}"
    try:
        plot(png_path, records, config.backends, title=title)
        feat_png = plot_features(png_path.replace(".png", "_features.png"), records, config.backends,
                                 title=title + ", features")
        log(f"wrote {json_path} and {png_path}" + (f" and {feat_png}" if feat_png else ""))
    except Exception as e:  # noqa: BLE001 - the JSON is the result; the plot is a view of it
        log(f"wrote {json_path}; plot failed: {_error_text(e)}")
    bad = failures(records)
    for line in bad:
        log(f"FAIL {line}")
    return 1 if bad else 0
