"""Attention benchmark, timing. Three figures per backend and row, all in one process on the same
tensors:
  TF/s     triton do_bench (L2 flushed between calls; one call between CUDA events, so on tiny
           shapes it includes host launch overhead): the eager call;
  kTF/s    kernel only: triton do_bench_cudagraph (the calls captured in a CUDA graph and
           replayed: no host work between kernels);
  us/call  host-bound: wall time per call over many back-to-back calls, synchronizing only at
           the end (what a small-shape caller pays: Python, dispatch, allocation, launch).
"""

from attention_backends import _sync, backend_context


def time_ms(backend, fn, warmup_ms, rep_ms):
    from triton.testing import do_bench
    with backend_context(backend):
        return float(do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median"))


def graph_time_ms(backend, fn, rep_ms):
    """Kernel-only time per call: fn's calls captured in a CUDA graph and replayed (the forward
    only: attention_lib.KERNEL_TIMED_MODES says why)."""
    from triton.testing import do_bench_cudagraph
    with backend_context(backend):
        return float(do_bench_cudagraph(fn, rep=rep_ms, return_mode="median"))


def host_calls_for(config, est_ms):
    """How many back-to-back calls: --host_calls, fewer where one call is long (the budget)."""
    if not config.host_calls:
        return 0
    if est_ms is None or not est_ms > 0:
        return config.host_calls
    return max(10, min(config.host_calls, int(config.host_budget_ms / est_ms)))


def host_time_us(backend, fn, calls, now=None, sync=None):
    """Wall time per call over `calls` back-to-back calls; one synchronize, at the end."""
    import time
    now = now or time.perf_counter
    sync = sync or _sync
    with backend_context(backend):
        for _ in range(max(3, calls // 20)):  # warm: caches, allocator, lazy init
            fn()
        sync()
        t0 = now()
        for _ in range(calls):
            fn()
        sync()
        return (now() - t0) / calls * 1e6
