"""The `_wheelmaker` of rules_python's py_wheel rule, on top of pypa's `wheel` library.

Debian's rules_python 0.22.1 (the one tools/bazel bootstraps) ships the py_wheel rule but not
its tools/wheelmaker.py. This takes the same command line that rule passes (see
@rules_python//python/private:py_wheel.bzl) and has `wheel.wheelfile.WheelFile` write the
archive and its RECORD. Reproducible: entries in sorted order, every timestamp 1980-01-01,
permissions normalised to 0644 / 0755, no host paths.
"""

import argparse
import os
import re
import stat
import sys
import zipfile

from wheel.wheelfile import WheelFile

FIXED_DATE_TIME = (1980, 1, 1, 0, 0, 0)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--name", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--python_tag", required=True)
    p.add_argument("--abi", required=True)
    p.add_argument("--platform", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--name_file", required=True)
    p.add_argument("--strip_path_prefix", action="append", default=[])
    p.add_argument("--volatile_status_file")
    p.add_argument("--stable_status_file")
    p.add_argument("--input_file_list", required=True)
    p.add_argument("--metadata_file", required=True)
    p.add_argument("--entry_points_file")
    p.add_argument("--description_file")
    p.add_argument("--extra_distinfo_file", action="append", default=[])
    return p.parse_args(argv)


def read_status(paths):
    values = {}
    for path in paths:
        if path:
            with open(path) as f:
                for line in f:
                    key, _, value = line.rstrip("\n").partition(" ")
                    values[key] = value
    return values


def stamp(text, status):
    """Replaces {KEY} with workspace-status values (py_wheel's documented stamping)."""
    def sub(m):
        if m.group(1) not in status:
            sys.exit("wheelmaker: {%s} is not a workspace status key (build with stamping?)" % m.group(1))
        return status[m.group(1)]
    return re.sub(r"\{([A-Z][A-Z0-9_]*)\}", sub, text)


def escape(segment):
    """Wheel file-name escaping (PEP 427): runs of other characters become one '_'."""
    return re.sub(r"[^\w\d.]+", "_", segment, flags=re.UNICODE)


def path_in_wheel(path, prefixes):
    for prefix in prefixes:  # the first prefix that matches wins
        if path.startswith(prefix):
            return path[len(prefix):]
    return path


def entry(arcname, executable):
    info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE_TIME)
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, whatever the host
    return info


def main(argv):
    args = parse_args(argv)
    status = read_status([args.stable_status_file, args.volatile_status_file])
    version = stamp(args.version, status)
    name = escape(args.name)
    tag = "-".join([args.python_tag, args.abi, args.platform])
    wheel_name = "%s-%s-%s.whl" % (name, escape(version), tag)
    dist_info = "%s-%s.dist-info" % (name, escape(version))

    files = {}
    with open(args.input_file_list) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            short_path, _, real_path = line.partition(";")
            arcname = path_in_wheel(short_path, args.strip_path_prefix)
            if arcname in files and files[arcname] != real_path:
                sys.exit("wheelmaker: two files map to %s: %s and %s" % (arcname, files[arcname], real_path))
            files[arcname] = real_path

    with open(args.metadata_file) as f:
        metadata = f.read().rstrip("\n").split("\n")
    # py_wheel leaves the version and the description to the wheelmaker. It has no summary
    # attribute in 0.22.1: an extra dist-info file named SUMMARY (one line) becomes the Summary
    # header instead of a file (tools/wheel/defs.bzl).
    metadata.insert(2, "Version: %s" % version)
    # Likewise no license-expression attribute: an extra dist-info file named LICENSE_EXPRESSION
    # (one SPDX expression) becomes the License-Expression header, and every extra file under
    # licenses/ a License-File header (core metadata 2.4, PEP 639: paths relative to
    # <dist-info>/licenses/). Both need Metadata-Version 2.4; py_wheel writes 2.1.
    license_headers = []
    for spec in list(args.extra_distinfo_file):
        arcname, _, real_path = spec.partition(";")
        if arcname in ("SUMMARY", "LICENSE_EXPRESSION"):
            with open(real_path, encoding="utf-8") as f:
                value = f.read().strip()
            if "\n" in value or not value:
                sys.exit("wheelmaker: %s must be one non-empty line" % arcname)
            if arcname == "SUMMARY":
                metadata.insert(3, "Summary: %s" % value)
            else:
                license_headers.insert(0, "License-Expression: %s" % value)
            args.extra_distinfo_file.remove(spec)
        elif arcname.startswith("licenses/"):
            license_headers.append("License-File: %s" % arcname[len("licenses/"):])
    if license_headers:
        if not license_headers[0].startswith("License-Expression: "):
            sys.exit("wheelmaker: license files need a LICENSE_EXPRESSION beside them")
        if any(line.startswith("License: ") for line in metadata):
            sys.exit("wheelmaker: License-Expression replaces py_wheel's `license` (License:); set only one")
        if metadata[0] != "Metadata-Version: 2.1":
            sys.exit("wheelmaker: expected py_wheel's 'Metadata-Version: 2.1' first, got %r" % metadata[0])
        metadata[0] = "Metadata-Version: 2.4"
        at = 4 if metadata[3].startswith("Summary: ") else 3
        metadata[at:at] = license_headers
    description = None
    if args.description_file:
        with open(args.description_file, encoding="utf-8") as f:
            description = f.read()
        if args.description_file.endswith(".md"):
            metadata.append("Description-Content-Type: text/markdown; charset=UTF-8")
    metadata_text = "\n".join(metadata) + "\n"
    if description is not None:
        metadata_text += "\n" + description

    wheel_text = "".join([
        "Wheel-Version: 1.0\n",
        "Generator: flashcore tools/wheel/wheelmaker.py\n",
        "Root-Is-Purelib: %s\n" % ("true" if args.platform == "any" else "false"),
        "Tag: %s\n" % tag,
    ])

    dist_files = {dist_info + "/METADATA": metadata_text.encode("utf-8"),
                  dist_info + "/WHEEL": wheel_text.encode("utf-8")}
    if args.entry_points_file:
        with open(args.entry_points_file, "rb") as f:
            dist_files[dist_info + "/entry_points.txt"] = f.read()
    for spec in args.extra_distinfo_file:
        arcname, _, real_path = spec.partition(";")
        with open(real_path, "rb") as f:
            dist_files[dist_info + "/" + arcname] = f.read()

    if os.path.basename(args.out) != wheel_name:
        sys.exit("wheelmaker: the declared output %s is not named %s (stamped versions are not "
                 "supported: keep the revision out of the version)" % (args.out, wheel_name))
    # WheelFile.close() writes RECORD through writestr(str), which takes its timestamp from here.
    os.environ["SOURCE_DATE_EPOCH"] = "315532800"  # 1980-01-01, as every other entry
    with WheelFile(args.out, "w") as whl:
        for arcname in sorted(files):
            with open(files[arcname], "rb") as f:
                whl.writestr(entry(arcname, arcname.endswith(".so")), f.read())
        for arcname in sorted(dist_files):
            whl.writestr(entry(arcname, False), dist_files[arcname])
    with open(args.name_file, "w") as f:
        f.write(wheel_name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
