"""Packer for //tools/gpu_bundle:bundle.bzl: writes <name>.tar.gz from the rule's manifest.

Input manifest (written by the rule): {"version", "bundle", "workspace", "targets": [...],
"entries": {runfiles path: {"path": exec path | null (empty file), "dir": bool, "from": label}}}.

Output tarball, deterministic (sorted, mtime 0, uid/gid 0, no user names, gzip mtime 0):
    bundle/run.py           the runner
    bundle/manifest.json    {"version", "bundle", "workspace", "targets", "files": {path: {size, sha256}}}
    bundle/runfiles/<path>  real file contents (symlinks dereferenced, tree artifacts expanded)
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import stat
import sys
import tarfile

PREFIX = "bundle"


def _walk(src_path, rpath):
    """Yields (runfiles path, real file path) for a file or a directory (tree artifact)."""
    if os.path.isdir(src_path):
        for root, dirs, files in os.walk(src_path, followlinks=True):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                yield rpath + "/" + os.path.relpath(full, src_path).replace(os.sep, "/"), full
    else:
        yield rpath, src_path


def _check_rpath(rpath):
    parts = rpath.split("/")
    if rpath.startswith("/") or ".." in parts or "" in parts:
        raise SystemExit("gpu_bundle: refusing unsafe runfiles path %r" % rpath)


def _info(name, size, mode):
    ti = tarfile.TarInfo(name)
    ti.size = size
    ti.mode = mode
    ti.mtime = 0
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    return ti


def _dir_info(name):
    ti = _info(name, 0, 0o755)
    ti.type = tarfile.DIRTYPE
    return ti


class _HashingReader(object):
    """File wrapper that hashes what tarfile reads from it."""

    def __init__(self, f, h):
        self._f, self._h = f, h

    def read(self, n=-1):
        b = self._f.read(n)
        self._h.update(b)
        return b


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--max_mb", type=float, default=30)
    args = ap.parse_args(argv)

    with open(args.manifest) as f:
        m = json.load(f)

    # runfiles path -> (real path or None for an empty file, mode)
    files = {}
    for rpath, e in sorted(m["entries"].items()):
        _check_rpath(rpath)
        if e["path"] is None:
            files.setdefault(rpath, (None, 0o644))
            continue
        if not os.path.exists(e["path"]):
            raise SystemExit("gpu_bundle: input %s (runfiles path %s, from %s) does not exist "
                             "(a dangling symlink?)" % (e["path"], rpath, e["from"]))
        for rp, real in _walk(e["path"], rpath):
            _check_rpath(rp)
            mode = 0o755 if os.stat(real).st_mode & stat.S_IXUSR else 0o644
            files[rp] = (real, mode)

    # Parent directories of everything, as explicit entries (deterministic modes on extraction).
    dirs = {PREFIX, PREFIX + "/runfiles"}
    for rp in files:
        parts = rp.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add(PREFIX + "/runfiles/" + "/".join(parts[:i]))
    clash = sorted(d for d in dirs if d[len(PREFIX + "/runfiles/"):] in files)
    if clash:
        raise SystemExit("gpu_bundle: %s is both a file and a directory in the runfiles" % clash[0])

    listing = {}
    sizes = []
    with open(args.output, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
                for d in sorted(dirs):
                    tar.addfile(_dir_info(d))
                for rp in sorted(files):
                    real, mode = files[rp]
                    h = hashlib.sha256()
                    if real is None:
                        data = b""
                        h.update(data)
                        tar.addfile(_info(PREFIX + "/runfiles/" + rp, 0, mode), io.BytesIO(data))
                        size = 0
                    else:
                        size = os.stat(real).st_size
                        with open(real, "rb") as src:
                            tar.addfile(_info(PREFIX + "/runfiles/" + rp, size, mode),
                                        _HashingReader(src, h))
                    listing[rp] = {"size": size, "sha256": h.hexdigest()}
                    sizes.append((size, rp))

                out_manifest = {
                    "version": m["version"],
                    "bundle": m["bundle"],
                    "workspace": m["workspace"],
                    "targets": m["targets"],
                    "files": listing,
                }
                data = (json.dumps(out_manifest, indent=2, sort_keys=True) + "\n").encode()
                tar.addfile(_info(PREFIX + "/manifest.json", len(data), 0o644), io.BytesIO(data))
                with open(args.runner, "rb") as f:
                    data = f.read()
                tar.addfile(_info(PREFIX + "/run.py", len(data), 0o755), io.BytesIO(data))

    size = os.path.getsize(args.output)
    limit = int(args.max_mb * 1000 * 1000)
    if size > limit:
        os.unlink(args.output)
        sizes.sort(reverse=True)
        lines = ["  %10.2f MB  %s" % (s / 1e6, rp) for s, rp in sizes[:15]]
        sys.stderr.write(
            "gpu_bundle: ERROR: %s is %.2f MB compressed, over the %.0f MB limit (max_size_mb).\n"
            "The largest files (uncompressed):\n%s\n"
            "Trim the targets' data/deps, or split the targets over several bundles.\n"
            % (m["bundle"], size / 1e6, args.max_mb, "\n".join(lines)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
