"""Checks a built flashcore wheel's platform tag with auditwheel and writes its provenance.

1. `auditwheel show --json` derives the manylinux tag from the glibc/libstdc++ symbol versions
   that _C.so actually needs; the build fails unless it equals the tag in the wheel's name.
2. Writes an in-toto Statement (SLSA provenance v1 predicate) for the wheel: its sha256 as the
   subject, the source revision, Bazel and its Debian packages, every pinned toolchain archive,
   the host compiler and per-library compile flags (all read from flashcore/_build_info.json
   inside the wheel, so the record and the installed package cannot disagree), and the
   auditwheel verdict. No timestamps or host paths: the record is as reproducible as the wheel.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import zipfile

BUILD_INFO = "flashcore/_build_info.json"


def auditwheel_show(wheel):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    res = subprocess.run([sys.executable, "-m", "auditwheel", "show", "--json", wheel],
                         capture_output=True, text=True, env=env)
    if res.returncode != 0:
        sys.exit("provenance: auditwheel show failed (%d):\n%s%s" % (res.returncode, res.stdout, res.stderr))
    return json.loads(res.stdout)


def auditwheel_version():
    import auditwheel
    return getattr(auditwheel, "__version__", None) or _dist_version("auditwheel")


def _dist_version(name):
    for p in sys.path:
        if os.path.isdir(p):
            for entry in sorted(os.listdir(p)):
                if entry.startswith(name + "-") and entry.endswith(".dist-info"):
                    return entry[len(name) + 1:-len(".dist-info")]
    return "unknown"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--wheel", required=True)
    p.add_argument("--target", required=True, help="the Bazel label that built the wheel")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)

    name = os.path.basename(args.wheel)
    declared = name[:-len(".whl")].split("-")[-1]
    report = auditwheel_show(args.wheel)
    derived = report.get("overall_tag")
    if derived != declared:
        sys.exit("provenance: %s is tagged %s, but auditwheel derives %s from the symbol versions "
                 "_C.so needs (%s). Set the platform in tools/wheel/defs.bzl (PLATFORM_TAG) to what "
                 "the build really gives." % (name, declared, derived, report.get("versioned_symbols")))

    with open(args.wheel, "rb") as f:
        data = f.read()
    with zipfile.ZipFile(args.wheel) as z:
        info = json.loads(z.read(BUILD_INFO))

    deps = [{"name": a["repository"], "uri": a["uri"], "digest": {"sha256": a["sha256"]}}
            for a in info["toolchain_archives"]]
    deps += [{"name": d["name"], "uri": "pkg:deb/debian/%s@%s?arch=%s" % (
                  d["name"], d["version"], d["file"].rsplit("_", 1)[-1][:-len(".deb")]),
              "digest": {"sha256": d["sha256"]}}
             for d in info["bazel"]["debian_packages"]]
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": name, "digest": {"sha256": hashlib.sha256(data).hexdigest()}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {
            "buildDefinition": {
                "buildType": "flashcore tools/wheel/defs.bzl flashcore_wheel (Bazel py_wheel)",
                "externalParameters": {
                    "source": {"revision": info["revision"]},
                    "target": args.target,
                    "wheel_tag": info["wheel_tag"],
                },
                "internalParameters": {
                    "host_compiler_version": info["host_compiler_version"],
                    "compile_flags": info["compile_flags"],
                    "platform_check": {
                        "tool": "auditwheel %s" % auditwheel_version(),
                        "declared": declared,
                        "derived": derived,
                        "versioned_symbols": report.get("versioned_symbols"),
                    },
                },
                "resolvedDependencies": deps,
            },
            "runDetails": {
                "builder": {"id": "flashcore tools/bazel",
                            "version": {"bazel": info["bazel"]["version"],
                                        "bazel_install": info["bazel"]["install"]}},
                "metadata": {"invocationId": None},
            },
        },
    }
    with open(args.out, "w") as f:
        json.dump(statement, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
