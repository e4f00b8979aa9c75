"""flashcore_wheel: the flashcore wheel (rules_python's py_wheel), its build facts and provenance.

    flashcore_wheel(name = "wheel", stamp = True, description_file = "//:README.md")

gives, in the calling package:
  <name>                    the wheel and, beside it, <wheel file name>.provenance.json
                            (building it fails unless auditwheel derives the declared platform tag)
  <name>_whl                the py_wheel itself
  <name>_files/flashcore/_build_info.json   the build facts packaged as flashcore/_build_info.json

stamp = True puts the exact source revision (tools/workspace_status.sh, stable status) into
_build_info.json: that action and the zip re-run on every commit, nothing else does (_C.so and
the py sources do not see the revision). stamp = False writes revision "unstamped", which
keeps a wheel that tests install cached across commits.
"""

load("@host_python//:python_tag.bzl", HOST_PYTHON_TAG = "PYTHON_TAG")
load("@rules_python//python/private:py_wheel.bzl", "PyWheelInfo", "py_wheel_lib")
load("//py:version.bzl", "VERSION")
load("//tools/cuda:audit.bzl", "action_audit")

# What auditwheel derives for _C.so built by this toolchain (Debian 12, glibc 2.36, gcc 12):
# the build fails if the two ever disagree (tools/wheel/provenance.py).
PLATFORM_TAG = "manylinux_2_34_x86_64"

SUMMARY = "FlashAttention forward and backward kernels (FP16/BF16; sm80, sm89, sm90a, and PTX for newer GPUs) for PyTorch; links no libtorch"

# The license (LICENSE at the top of the repository): its SPDX expression goes into METADATA as
# License-Expression and the file into the wheel as <dist-info>/licenses/LICENSE (License-File).
LICENSE_EXPRESSION = "BSD-3-Clause"

# The lowest torch flashcore has been tested with: 2.11 (GPU suites, docs/results/), 2.13 (CPU).
REQUIRES = ["torch>=2.11"]

PYTHON_TAG = select({
    "//bindings:python_target_py312": "cp312",
    "//conditions:default": HOST_PYTHON_TAG,
})

_PYTHON_REQUIRES = select({
    "//bindings:python_target_py312": "==3.12.*",
    "//conditions:default": "==%s.%s.*" % (HOST_PYTHON_TAG[2], HOST_PYTHON_TAG[3:]),
})

# rules_python's py_wheel rule with its wheelmaker supplied: Debian's rules_python 0.22.1 has the
# rule but not //tools:wheelmaker. Same attributes, same implementation.
flashcore_py_wheel = rule(
    implementation = py_wheel_lib.implementation,
    attrs = dict(py_wheel_lib.attrs, _wheelmaker = attr.label(
        default = "//tools/wheel:wheelmaker",
        executable = True,
        cfg = "exec",
    )),
    doc = "rules_python's py_wheel (0.22.1), archive written by //tools/wheel:wheelmaker.",
)

def _wheel_release_impl(ctx):
    wheel = ctx.attr.wheel[PyWheelInfo].wheel
    provenance = ctx.actions.declare_file(wheel.basename + ".provenance.json")
    ctx.actions.run(
        executable = ctx.executable._provenance,
        arguments = ["--wheel", wheel.path, "--target", str(ctx.label).lstrip("@"), "--out", provenance.path],
        inputs = [wheel],
        outputs = [provenance],
        mnemonic = "WheelProvenance",
        progress_message = "Checking the platform tag of %s and writing its provenance" % wheel.basename,
    )
    return [
        DefaultInfo(files = depset([wheel, provenance]), runfiles = ctx.runfiles([wheel, provenance])),
        ctx.attr.wheel[PyWheelInfo],
    ]

_wheel_release = rule(
    implementation = _wheel_release_impl,
    attrs = {
        "wheel": attr.label(providers = [PyWheelInfo], mandatory = True),
        "_provenance": attr.label(default = "//tools/wheel:provenance", executable = True, cfg = "exec"),
    },
)

def flashcore_wheel(name, stamp, description_file = None, visibility = None):
    """See the module docstring."""
    files = name + "_files"
    action_audit(
        name = name + "_actions",
        targets = ["//py/flashcore:_C.so"],
    )
    native.genrule(
        name = name + "_cc_version",
        outs = [name + "_cc_version.txt"],
        cmd = "$(CC) --version > $@",
        toolchains = ["@bazel_tools//tools/cpp:current_cc_toolchain"],
        tools = ["@bazel_tools//tools/cpp:current_cc_toolchain"],
    )
    native.genrule(
        name = name + "_build_info",
        srcs = [
            ":%s_actions" % name,
            ":%s_cc_version" % name,
            "//:MODULE.bazel",
            "@build_env//:bazel.json",
        ],
        outs = [files + "/flashcore/_build_info.json"],
        cmd = " ".join([
            "$(execpath //tools/wheel:build_info)",
            "--name flashcore --version " + VERSION,
            "--audit $(execpath :%s_actions)" % name,
            "--cc_version $(execpath :%s_cc_version)" % name,
            "--module $(execpath //:MODULE.bazel)",
            "--bazel_env $(execpath @build_env//:bazel.json)",
            "--platform " + PLATFORM_TAG,
            "--out $@",
            "--stable_status bazel-out/stable-status.txt" if stamp else "",
            "--python_tag ",
        ]) + PYTHON_TAG + " --abi " + PYTHON_TAG,
        stamp = 1 if stamp else 0,
        tools = ["//tools/wheel:build_info"],
    )
    native.genrule(
        name = name + "_summary",
        outs = [name + "_summary.txt"],
        cmd = "echo '%s' > $@" % SUMMARY,
    )
    native.genrule(
        name = name + "_license_expression",
        outs = [name + "_license_expression.txt"],
        cmd = "echo '%s' > $@" % LICENSE_EXPRESSION,
    )
    flashcore_py_wheel(
        name = name + "_whl",
        distribution = "flashcore",
        version = VERSION,
        python_tag = PYTHON_TAG,
        abi = PYTHON_TAG,
        platform = PLATFORM_TAG,
        python_requires = _PYTHON_REQUIRES,
        requires = REQUIRES,
        classifiers = [
            "Environment :: GPU :: NVIDIA CUDA :: 13",
            "Operating System :: POSIX :: Linux",
            "Programming Language :: Python :: 3",
        ],
        description_file = description_file,
        # SUMMARY and LICENSE_EXPRESSION become METADATA headers (tools/wheel/wheelmaker.py).
        extra_distinfo_files = {
            ":%s_summary" % name: "SUMMARY",
            ":%s_license_expression" % name: "LICENSE_EXPRESSION",
            "//:LICENSE": "licenses/LICENSE",
        },
        deps = [
            "//py/flashcore",
            "//py/flashcore:_C.so",
            ":%s_build_info" % name,
        ],
        strip_path_prefixes = ["%s/%s/" % (native.package_name(), files), "py/"],
        stamp = 0,
    )
    _wheel_release(
        name = name,
        wheel = ":%s_whl" % name,
        visibility = visibility,
    )
