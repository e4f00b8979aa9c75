"""flashcore._arch: what this build's extension holds (build_info) and which of its kernel
libraries a GPU of a given compute capability runs (select_arch, PTX_ARCH). Apart from
flashcore._attention because these depend on the build alone: no device query, no per-process
state, no name the tests patch. The per-device choice (_device_arch, its one-time warning) and the
test-only forced library stay in flashcore._attention beside the launches that read them, where
the tests patch them; it re-exports these names (flashcore.build_info, flashcore.select_arch)."""

from __future__ import annotations

import functools
import json
import os

from flashcore import _C  # flashcore._attention imports it first and explains a missing extension


def build_info() -> dict:
    """What this build holds. From the extension: kernels (arch, dtype, head_dim, causal), CUDA
    runtime and nvcc versions, host compiler. From an installed wheel (flashcore/_build_info.json,
    the facts its provenance record lists): name, version, exact source revision, wheel tag,
    Bazel and its packages, every toolchain archive's sha256, host compiler version, compile
    flags per kernel library. "from_wheel" says which of the two this is. "head_dims" sums the
    kernel lists up: {arch: {dtype: {"fwd": [...], "bwd": [...], "decode": [...]}}}, the instantiated
    head dims per pass (forward and backward: every multiple of 8 up to the largest runs on the
    smallest one >= it; the KV-cache "decode" kernels take exactly theirs)."""
    info = dict(_C.build_info())
    head_dims = {}
    for pass_, key in (("fwd", "kernels"), ("bwd", "bwd_kernels"), ("decode", "decode_kernels")):
        for k in info.get(key, ()):
            dims = head_dims.setdefault(k["arch"], {}).setdefault(k["dtype"], {}).setdefault(pass_, [])
            if k["head_dim"] not in dims:
                dims.append(k["head_dim"])
    for per_dtype in head_dims.values():
        for passes in per_dtype.values():
            for dims in passes.values():
                dims.sort()
    info["head_dims"] = head_dims
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build_info.json")
    info["from_wheel"] = os.path.exists(path)
    if info["from_wheel"]:
        with open(path, encoding="utf-8") as f:
            info.update(json.load(f))
    return info


# The portable library: the mma.sync (sm80) kernels compiled to compute_80 PTX only, which the
# driver JIT-compiles on first use for any GPU of compute capability >= 8.0 (kernels/defs.bzl
# PTX_ARCHS). select_arch picks it where this build has no SASS for the GPU (Blackwell and later).
PTX_ARCH = "sm80_ptx"


@functools.cache
def _compiled_archs() -> frozenset:
    return frozenset(k["arch"] for k in _C.build_info()["kernels"])


def select_arch(capability, compiled_archs=None) -> str:
    """Kernel library for a device of compute capability (major, minor).

    SASS where this build has it: sm_90a runs only on 9.0, sm_89 on 8.9, sm_80 on every 8.x
    (8.0/8.6/8.7). Any other capability >= 8.0 (Blackwell 10.x/12.x and later), or one whose SASS
    library is not compiled, gets the portable PTX library (PTX_ARCH: compute_80 PTX runs on every
    capability >= 8.0 through the driver's JIT; flashcore warns once per GPU that it is not tuned).
    Below 8.0 (mma.sync m16n8k16 and cp.async need Ampere) nothing runs.
    """
    major, minor = capability
    compiled = _compiled_archs() if compiled_archs is None else set(compiled_archs)
    if (major, minor) == (9, 0):
        sass = "sm90a"
    elif (major, minor) == (8, 9):
        sass = "sm89"
    elif major == 8:
        sass = "sm80"
    else:
        sass = None
    if sass in compiled:
        return sass
    if (major, minor) >= (8, 0) and PTX_ARCH in compiled:
        return PTX_ARCH
    raise RuntimeError(
        "flashcore: this build has no kernels for a GPU of compute capability %d.%d "
        "(compiled archs: %s; supported GPUs: compute capability 8.0 and newer: SASS for Ampere "
        "sm80/86/87, Ada sm89 and Hopper sm90, portable PTX (%s) for the rest)"
        % (major, minor, ", ".join(sorted(compiled)) or "none", PTX_ARCH)
    )
