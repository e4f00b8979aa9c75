"""Writes flashcore/_build_info.json, the build facts a wheel carries (flashcore.build_info()
merges them with what _C.so reports) and that tools/wheel/provenance.py puts in the provenance:

  revision            the exact source revision (Bazel's stable workspace status, so a new commit
                      re-runs this action; "unstamped" for wheels built without stamping)
  bazel               Bazel's version and the sha256 of every Debian package it was bootstrapped from
  toolchain_archives  every archive MODULE.bazel fetches by URL + sha256 (CUDA wheels, pybind11,
                      wheel tooling) and the Python 3.12 headers tarball's pin
  host_compiler       `$(CC) --version` of the C++ toolchain that compiled and linked _C.so
  compile_flags       per library of _C.so (each (dtype, arch) kernel library, the API, the
                      bindings): the compiler and its flags, file names left out

Nothing here holds a host path, a date or a user name: two clean clones give the same file.
"""

import argparse
import json
import os
import re
import sys

REVISION_KEY = "STABLE_FLASHCORE_REVISION"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    for flag in ("name", "version", "python_tag", "abi", "platform", "audit", "module", "bazel_env",
                 "cc_version", "out"):
        p.add_argument("--" + flag, required=True)
    p.add_argument("--stable_status", help="bazel-out/stable-status.txt (stamped builds)")
    return p.parse_args(argv)


def revision(stable_status):
    if not stable_status:
        return "unstamped"
    with open(stable_status) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(" ")
            if key == REVISION_KEY:
                if not value or value.startswith("unknown"):
                    sys.exit("build_info: tools/workspace_status.sh found no git revision (%r); a stamped "
                             "wheel must name its exact source" % value)
                return value
    sys.exit("build_info: %s is missing from %s (is --workspace_status_command set?)" % (REVISION_KEY, stable_status))


def toolchain_archives(module_text):
    """Every (repository, url, sha256) that MODULE.bazel pins, in file order."""
    out = []
    # use_repo_rule calls: NAME(\n ... \n) at the start of a line.
    for m in re.finditer(r"^(\w+)\(\n(.*?)^\)", module_text, re.S | re.M):
        rule, body = m.group(1), m.group(2)
        name = re.search(r'^\s*name = "([^"]+)"', body, re.M)
        name = name.group(1) if name else rule
        for url, sha in re.findall(r'"(https://[^"]+)":\s*"([0-9a-f]{64})"', body):  # dicts of wheels
            out.append({"repository": name, "uri": url, "sha256": sha})
        sha = re.search(r'^\s*sha256 = "([0-9a-f]{64})"', body, re.M)
        if sha:
            urls = re.findall(r'"(https://[^"]+)"', re.search(r"^\s*urls = \[(.*?)\]", body, re.M | re.S).group(1)) \
                if re.search(r"^\s*urls = \[", body, re.M) else []
            env = re.search(r'^\s*env_var = "([^"]+)"', body, re.M)
            uri = urls[0] if urls else ("file from $%s" % env.group(1) if env else "local file")
            out.append({"repository": name, "uri": uri, "sha256": sha.group(1)})
    if not out:
        sys.exit("build_info: found no pinned archive in MODULE.bazel")
    return out


def compile_flags(audit):
    """{label: {"tool": ..., "flags": [...]}} for every compile action of _C.so's libraries."""
    libs = {}
    for rec in audit:
        if rec["mnemonic"] not in ("CudaCompile", "CppCompile"):
            continue
        argv = rec["argv"]
        if rec["mnemonic"] == "CudaCompile":
            # /bin/bash -c SCRIPT '' NVCC SRC OUT FLAGS... (tools/cuda/defs.bzl)
            tool, flags = os.path.basename(argv[4]), argv[7:]
        else:
            # Bazel registers a non-PIC twin of each C++ compile; the shared _C.so links the PIC one.
            if not argv[argv.index("-o") + 1].endswith(".pic.o"):
                continue
            tool, flags, skip = os.path.basename(argv[0]), [], False
            for a in argv[1:]:
                if skip:
                    skip = False
                elif a in ("-MF", "-c", "-o"):
                    skip = True
                elif not a.startswith("-frandom-seed="):
                    flags.append(a)
        label = rec["label"].lstrip("@")
        entry = libs.setdefault(label, {"tool": tool, "flags": flags})
        if (entry["tool"], entry["flags"]) != (tool, flags):
            sys.exit("build_info: %s compiles its sources with different flags; record them per source" % label)
    if not any(e["tool"] == "nvcc" for e in libs.values()):
        sys.exit("build_info: the audit holds no nvcc compile action")
    return dict(sorted(libs.items()))


def main(argv):
    args = parse_args(argv)
    with open(args.audit) as f:
        audit = json.load(f)
    with open(args.module) as f:
        module_text = f.read()
    with open(args.bazel_env) as f:
        bazel = json.load(f)
    with open(args.cc_version) as f:
        cc_version = f.readline().strip()
    info = {
        "name": args.name,
        "version": args.version,
        "revision": revision(args.stable_status),
        "wheel_tag": "-".join([args.python_tag, args.abi, args.platform]),
        "bazel": bazel,
        "toolchain_archives": toolchain_archives(module_text),
        "host_compiler_version": cc_version,
        "compile_flags": compile_flags(audit),
    }
    with open(args.out, "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
