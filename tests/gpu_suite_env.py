"""What every single-GPU suite checks before its first test: a CUDA device is visible and it is
the kind the target was declared for (FLASHCORE_EXPECTED_GPU, set by tests/gpu.bzl), so a suite
run on the wrong executor stops with a message instead of a cached verdict for the wrong GPU."""

import os
import sys

EXPECTED_GPU = os.environ.get("FLASHCORE_EXPECTED_GPU", "")


def check_expected_gpu(torch_module=None):
    """Exits with a message naming the wanted and the visible GPU unless they match (by
    case-insensitive substring, e.g. "H100" in "NVIDIA H100 80GB HBM3")."""
    if torch_module is None:
        import torch as torch_module
    if not torch_module.cuda.is_available():
        sys.exit("flashcore GPU suite: no CUDA device visible (this target needs a %s)" % (EXPECTED_GPU or "GPU"))
    name = torch_module.cuda.get_device_name()
    if EXPECTED_GPU and EXPECTED_GPU.lower() not in name.lower():
        sys.exit("flashcore GPU suite for %s: the visible GPU is %r; run this target on a %s executor"
                 % (EXPECTED_GPU, name, EXPECTED_GPU))
