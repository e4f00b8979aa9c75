"""Repository rule @build_env: facts about the Bazel that runs this build, for the wheel's
provenance (tools/wheel/build_info.py). Nothing here is an input of _C.so.

  bazel.json: {"version": ..., "install": "debian-prefix" | "other",
               "debian_packages": [{"name", "version", "size", "sha256", "file"}, ...]}

The Debian packages are read from MANIFEST.txt of the prefix that tools/bootstrap/bazel_prefix.sh
built (the packages actually unpacked, sha256-verified, fallbacks included), found by walking up
from the running Bazel's install base (which @bazel_tools lives in)."""

def _build_env_impl(rctx):
    tool = rctx.path(Label("@bazel_tools//tools/build_defs/repo:http.bzl")).realpath
    version = native.bazel_version or "unknown"
    packages = []
    install = "other"
    d = tool.dirname
    for _ in range(12):
        if d == None:
            break
        manifest = d.get_child("MANIFEST.txt")
        if manifest.exists and d.get_child("bin").get_child("bazel").exists:
            install = "debian-prefix"
            for line in rctx.read(manifest).splitlines():
                f = line.split(" ")
                if len(f) != 5:
                    fail("unexpected line in %s: %r" % (manifest, line))
                packages.append({"name": f[0], "version": f[1], "size": int(f[2]), "sha256": f[3], "file": f[4]})
            break
        d = d.dirname
    rctx.file("bazel.json", json.encode_indent({
        "version": version,
        "install": install,
        "debian_packages": sorted(packages, key = lambda p: p["name"]),
    }) + "\n")
    rctx.file("BUILD.bazel", 'exports_files(["bazel.json"], visibility = ["//visibility:public"])\n')

build_env = repository_rule(
    implementation = _build_env_impl,
    local = True,
    doc = "Bazel version and the Debian packages it was bootstrapped from (see module docstring).",
)
