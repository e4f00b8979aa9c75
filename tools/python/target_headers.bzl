"""Repository rule: Python headers of the GPU machine (a pinned tarball, passed by --repo_env).

The GPU machines run Python 3.12 and have no Bazel, so their extension is built here against
their headers. The tarball's path comes from an environment variable (never a path in the
source tree); its sha256 is checked against the pin before anything is extracted. Without the
variable the repository still loads, but its headers target fails the build with instructions.
"""

def _target_python_headers_impl(rctx):
    tgz = rctx.os.environ.get(rctx.attr.env_var, "")
    if not tgz:
        rctx.file("BUILD.bazel", """\

load("@rules_cc//cc:defs.bzl", "cc_library")

genrule(
    name = "missing_headers",
    outs = ["missing_headers.h"],
    cmd = "echo 'The GPU-target Python headers are not configured: pass --repo_env={var}=/abs/path/to/the/headers.tgz (see docs/GPU.md)' >&2; exit 1",
)

cc_library(
    name = "python_headers",
    hdrs = [":missing_headers"],
    visibility = ["//visibility:public"],
)
""".format(var = rctx.attr.env_var))
        return
    res = rctx.execute(["sha256sum", tgz])
    got = res.stdout.split(" ")[0] if res.return_code == 0 else "unreadable (%s)" % res.stderr.strip()
    if got != rctx.attr.sha256:
        fail("%s=%s has sha256 %s, expected %s (the pinned capture of the GPU machine's headers)" %
             (rctx.attr.env_var, tgz, got, rctx.attr.sha256))
    rctx.extract(archive = tgz, output = "root")
    for d in [rctx.attr.include_dir, rctx.attr.pyconfig_dir]:
        if not rctx.path("root/" + d).exists:
            fail("%s lacks %s" % (tgz, d))
    rctx.file("BUILD.bazel", """\
load("@rules_cc//cc:defs.bzl", "cc_library")

cc_library(
    name = "python_headers",
    hdrs = glob(["root/{inc}/**/*.h", "root/{cfg}/*.h"]),
    # Debian/Ubuntu's python3.12/pyconfig.h includes <x86_64-linux-gnu/python3.12/pyconfig.h>,
    # so the multiarch dir's root (the tarball's usr/include) is an include dir too.
    includes = ["root/{inc}", "root/{cfg_root}"],
    visibility = ["//visibility:public"],
)
""".format(
        inc = rctx.attr.include_dir,
        cfg = rctx.attr.pyconfig_dir,
        cfg_root = rctx.attr.pyconfig_dir.rsplit("/", 2)[0],
    ))

target_python_headers = repository_rule(
    implementation = _target_python_headers_impl,
    attrs = {
        "env_var": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True),
        "include_dir": attr.string(mandatory = True),
        "pyconfig_dir": attr.string(mandatory = True),
    },
    environ = ["FLASHCORE_PY312_HEADERS_TGZ"],
)
