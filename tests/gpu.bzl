"""GPU suites: the same test sources instantiated once per GPU kind.

Each suite is a py_test tagged `requires-gpu` and `gpu-<kind>`, with exec_properties naming the
GPU so a remote executor routes it (and caches its result by input digest), plus a
`<name>_bundle` tarball of its runfiles for GPU machines without Bazel (docs/GPU.md).
"""

load("@rules_python//python:defs.bzl", "py_test")
load("//tools/gpu_bundle:bundle.bzl", "gpu_bundle")

def _gpu_guard_impl(ctx):
    fail(("\n\n{t} needs an NVIDIA {gpu} and this invocation cannot run it here.\n" +
          "  - on remote GPU executors (a worker advertising gpu={kind}; docs/REMOTE.md):\n" +
          "      tools/bazel test --config=rbe_gpu --repo_env=FLASHCORE_PY312_HEADERS_TGZ=/abs/path.tgz {t}\n" +
          "  - or build its bundle here and run it on the GPU machine (docs/GPU.md):\n" +
          "      tools/bazel build --config=gpu_target --repo_env=FLASHCORE_PY312_HEADERS_TGZ=/abs/path.tgz {t}_bundle\n" +
          "  - on a machine with that GPU and Bazel: tools/bazel test --config=gpu {t}\n").format(
        t = ctx.attr.test,
        gpu = ctx.attr.gpu,
        kind = ctx.attr.kind,
    ))

# Fails the analysis with a how-to message: what a GPU suite depends on when GPU suites are not
# enabled for the invocation (see //tools/rbe:gpu_tests_enabled).
_gpu_guard = rule(
    implementation = _gpu_guard_impl,
    attrs = {"test": attr.string(), "gpu": attr.string(), "kind": attr.string()},
)

# kind -> substring of torch.cuda.get_device_name() on that GPU
GPU_KINDS = {
    "l4": "L4",
    "a100": "A100",
    "h100": "H100",
    "h200": "H200",
}

# Machines of several GPUs of one kind: kind -> substring of each GPU's name. Their suites run the
# multi-device tests (tests/gpu_multi_device_test.py), not the single-GPU suites.
MULTI_GPU_KINDS = {
    "h200x2": "H200",
}

_ALL_KINDS = GPU_KINDS | MULTI_GPU_KINDS

def gpu_test_suite(name, kind, src, extra_srcs = {}, deps = [], data = [], size = "large"):
    """`name` runs `src`; each extra_srcs entry {suffix: src} is a py_test `name_suffix` beside it.
    The bundle holds them all.

    `manual`: wildcards (//..., //tests:all) skip the GPU suites; named explicitly without a
    GPU-enabled config, the guard fails fast with a message instead of "No test targets"."""
    tests = {name: src}
    for suffix, extra in extra_srcs.items():
        tests[name + "_" + suffix] = extra
    for test_name, test_src in tests.items():
        _gpu_guard(
            name = test_name + "_needs_gpu",
            test = "//%s:%s" % (native.package_name(), test_name),
            gpu = _ALL_KINDS[kind],
            kind = kind,
            tags = ["manual"],
        )
        py_test(
            name = test_name,
            srcs = [test_src],
            main = test_src,
            deps = deps,
            data = data + select({
                "//tools/rbe:gpu_tests_enabled": [],
                "//conditions:default": [":" + test_name + "_needs_gpu"],
            }),
            env = {"FLASHCORE_EXPECTED_GPU": _ALL_KINDS[kind]},
            size = size,
            tags = ["requires-gpu", "gpu-" + kind, "manual"],
            exec_properties = {"gpu": kind},
        )
    gpu_bundle(
        name = name + "_bundle",
        targets = {":" + t: "_main/%s/%s" % (native.package_name(), s) for t, s in tests.items()},
        testonly = True,
        # Meaningful only with --config=gpu_target (the GPU machines' Python); not part of //...
        tags = ["manual"],
    )
