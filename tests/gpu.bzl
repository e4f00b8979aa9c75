"""GPU suites: the same test sources instantiated once per GPU kind.

Each suite is a py_test tagged `requires-gpu` and `gpu-<kind>`, with exec_properties naming the
GPU so a remote executor routes it (and caches its result by input digest), plus a
`<name>_bundle` tarball of its runfiles for GPU machines without Bazel (docs/GPU.md).
"""

load("@rules_python//python:defs.bzl", "py_test")
load("//tools/gpu_bundle:bundle.bzl", "gpu_bundle")

# kind -> substring of torch.cuda.get_device_name() on that GPU
GPU_KINDS = {
    "l4": "L4",
    "a100": "A100",
    "h100": "H100",
    "h200": "H200",
}

def gpu_test_suite(name, kind, src, extra_srcs = {}, deps = [], size = "large"):
    """`name` runs `src`; each extra_srcs entry {suffix: src} is a py_test `name_suffix` beside it.
    The bundle holds them all."""
    tests = {name: src}
    for suffix, extra in extra_srcs.items():
        tests[name + "_" + suffix] = extra
    for test_name, test_src in tests.items():
        py_test(
            name = test_name,
            srcs = [test_src],
            main = test_src,
            deps = deps,
            env = {"FLASHCORE_EXPECTED_GPU": GPU_KINDS[kind]},
            size = size,
            tags = ["requires-gpu", "gpu-" + kind],
            exec_properties = {"gpu": kind},
        )
    gpu_bundle(
        name = name + "_bundle",
        targets = {":" + t: "_main/%s/%s" % (native.package_name(), s) for t, s in tests.items()},
        testonly = True,
        # Meaningful only with --config=gpu_target (the GPU machines' Python); not part of //...
        tags = ["manual"],
    )
