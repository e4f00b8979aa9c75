"""Repository rule: a CUDA toolkit assembled from NVIDIA's PyPI wheels, pinned by sha256.

Every wheel lays its files under nvidia/cu13/{bin,include,lib,nvvm}; extracting all of them into
one directory gives the layout nvcc expects (it finds cicc, the crt headers and libdevice
relative to its own bin/). Nothing on the host (/usr/local/cuda, PATH) is read.
"""

_ROOT = "nvidia/cu13"

def _cuda_toolkit_impl(rctx):
    for url, sha256 in rctx.attr.wheels.items():
        rctx.report_progress("fetching " + url.split("/")[-1])
        rctx.download_and_extract(url = url, sha256 = sha256, type = "zip")

    # Wheels drop the exec bits of their programs; nvcc.profile looks in lib64, wheels say lib.
    res = rctx.execute(["chmod", "-R", "a+x", _ROOT + "/bin", _ROOT + "/nvvm/bin"])
    if res.return_code != 0:
        fail("cannot restore exec bits in the CUDA wheels: " + res.stderr)
    rctx.symlink(_ROOT + "/lib", _ROOT + "/lib64")
    for needed in ["bin/nvcc", "nvvm/bin/cicc", "bin/ptxas", "lib/libcudart_static.a", "include/cuda_runtime.h", "include/crt/host_config.h"]:
        if not rctx.path(_ROOT + "/" + needed).exists:
            fail("CUDA wheels are missing %s: the pinned wheel set is incomplete" % needed)

    res = rctx.execute([_ROOT + "/bin/nvcc", "--version"])
    if res.return_code != 0:
        fail("the fetched nvcc does not run: " + res.stderr)
    release = [l for l in res.stdout.splitlines() if l.startswith("Build ")]
    rctx.file("version.bzl", "NVCC_VERSION = %r\n" % (release[0] if release else res.stdout.strip()))

    rctx.file("BUILD.bazel", """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

exports_files(["{root}/bin/nvcc"])

# Everything an nvcc invocation may read: the driver, its helpers (cicc, ptxas, fatbinary,
# nvlink), libdevice, the crt/cccl/runtime headers.
filegroup(
    name = "compiler_files",
    srcs = glob([
        "{root}/bin/**",
        "{root}/nvvm/**",
        "{root}/include/**",
        "{root}/lib/**",
        "{root}/lib64",
    ]),
)

cc_library(
    name = "cuda_headers",
    hdrs = glob(["{root}/include/**/*.h", "{root}/include/**/*.hpp", "{root}/include/**/*.cuh", "{root}/include/**/*.inl"], allow_empty = True),
    includes = ["{root}/include"],
)

# Static CUDA runtime: the extension carries its own cudart and needs only the driver.
cc_library(
    name = "cudart_static",
    srcs = ["{root}/lib/libcudart_static.a"],
    linkopts = ["-ldl", "-lrt", "-lpthread"],
    deps = [":cuda_headers"],
)
""".format(root = _ROOT))

cuda_toolkit = repository_rule(
    implementation = _cuda_toolkit_impl,
    attrs = {
        "wheels": attr.string_dict(mandatory = True, doc = "wheel URL -> sha256"),
    },
    doc = "CUDA toolkit from PyPI wheels (nvcc, nvvm, runtime, cccl, crt), one tree.",
)
