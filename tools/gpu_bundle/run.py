#!/usr/bin/env python3
"""Runs the targets of a gpu_bundle tarball the way `bazel test` / `bazel run` would, without
Bazel (the lent GPU machines have no Bazel, no Java and no network). Standard library only.

    tar xzf gpu_h200_bundle.tar.gz
    python3 bundle/run.py --out results                  # every test target
    python3 bundle/run.py --only //tests:gpu_h200 --out results
    python3 bundle/run.py --list
    python3 bundle/run.py -- --iters 100                 # binary bundle: args go to the binary

Tests (kind "test"): each one gets a fresh TEST_TMPDIR, XML_OUTPUT_FILE=OUT/<pkg>/<name>/test.xml,
TEST_UNDECLARED_OUTPUTS_DIR=OUT/<pkg>/<name>/test.outputs, TEST_SRCDIR=RUNFILES_DIR=bundle/runfiles,
TEST_WORKSPACE, TEST_TARGET, PYTHONPATH from the target's imports and its env; it runs as
`python <main>` with cwd bundle/runfiles/_main, its output is streamed and saved to
OUT/<pkg>/<name>/test.log. A summary table follows, then a line `N passed, N failed`; the exit
status is 1 when any test failed. OUT/summary.json has the same in machine-readable form.

Binaries (kind "binary"): run like `bazel run` (cwd bundle/runfiles/_main, BUILD_WORKING_DIRECTORY
set to the caller's directory) with the arguments after `--`; output goes straight to the
terminal and the exit status is the binary's.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from xml.sax.saxutils import escape, quoteattr

BUNDLE = os.path.dirname(os.path.abspath(__file__))
RUNFILES = os.path.join(BUNDLE, "runfiles")

# Variables an outer test runner (e.g. bazel test running this runner) may have set: never leak
# them into the targets, which get their own.
_SCRUB_PREFIXES = ("TEST_", "TESTBRIDGE_", "RUNFILES_", "GTEST_")
_SCRUB = {"XML_OUTPUT_FILE", "PYTHONPATH", "PYTHON_RUNFILES", "PYTHONHOME", "PYTHONSAFEPATH",
          "BUILD_WORKING_DIRECTORY", "BUILD_WORKSPACE_DIRECTORY", "JAVA_RUNFILES"}


def _norm_label(label):
    """'@@//a:b', '@//a:b', '//a:b', 'a:b' -> '//a:b'; '//a/b' -> '//a/b:b'."""
    label = label.strip()
    if label.startswith("@@//") or label.startswith("@//"):
        label = label[label.index("//"):]
    if not label.startswith("//") and not label.startswith("@"):
        label = "//" + label
    if ":" not in label:
        label = label + ":" + label.rstrip("/").split("/")[-1]
    return label


def _select(targets, only):
    if not only:
        return list(targets)
    chosen = []
    for want in only:
        hits = [t for t in targets if _norm_label(t["label"]) == _norm_label(want)]
        if not hits:  # a bare target name, if unambiguous
            hits = [t for t in targets if t["name"] == want.lstrip(":")]
        if len(hits) != 1:
            sys.exit("run.py: --only %s matches %s; targets in this bundle:\n  %s" % (
                want, "nothing" if not hits else "several",
                "\n  ".join(t["label"] for t in targets)))
        if hits[0] not in chosen:
            chosen.append(hits[0])
    return chosen


def _out_subdir(t):
    parts = []
    if t.get("repo"):
        parts += ["external", t["repo"]]
    if t.get("package"):
        parts += t["package"].split("/")
    parts.append(t["name"])
    return os.path.join(*parts)


def _python_path(t, workspace):
    """Like Bazel's python stub: the main repo dir, the target's imports, the runfiles root and
    the top-level repository directories."""
    entries = [os.path.join(RUNFILES, workspace)]
    entries += [os.path.join(RUNFILES, p) for p in t.get("imports", [])]
    entries.append(RUNFILES)
    for d in sorted(os.listdir(RUNFILES)):
        full = os.path.join(RUNFILES, d)
        if os.path.isdir(full):
            entries.append(full)
    seen, out = set(), []
    for e in entries:
        if e not in seen:
            seen.add(e)
            out.append(e)
    return os.pathsep.join(out)


def _base_env(t, workspace):
    env = {k: v for k, v in os.environ.items()
           if k not in _SCRUB and not k.startswith(_SCRUB_PREFIXES)}
    env.update(t.get("env", {}))
    env["PYTHONPATH"] = _python_path(t, workspace)
    env["RUNFILES_DIR"] = RUNFILES
    env["PYTHON_RUNFILES"] = RUNFILES
    return env


def _kill_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _xml_text(s):
    # Drop characters XML 1.0 cannot hold (escape sequences, NUL, ...).
    return "".join(c for c in s if c in "\t\n\r" or ord(c) >= 0x20)


def _write_default_xml(path, label, status, seconds, log_path):
    """What Bazel's generate-xml.sh writes when a test leaves no XML of its own."""
    try:
        with open(log_path, "r", errors="replace") as f:
            log = f.read()
    except OSError:
        log = ""
    failed = status != "PASSED"
    failure = ('<failure message=%s>%s</failure>' % (quoteattr("exited with " + status),
                                                     escape(_xml_text(log[-100000:])))
               if failed else "")
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
                '<testsuite name=%s tests="1" failures="%d" errors="0">\n'
                '<testcase name=%s status="run" time="%.3f">%s</testcase>\n'
                '<system-out>%s</system-out>\n</testsuite>\n</testsuites>\n' % (
                    quoteattr(label), int(failed), quoteattr(label), seconds, failure,
                    escape(_xml_text(log[-100000:]))))


def run_test(t, workspace, out_dir, extra_args, timeout, keep_tmpdir):
    label = t["label"]
    tdir = os.path.join(out_dir, _out_subdir(t))
    if os.path.isdir(tdir):
        shutil.rmtree(tdir)
    os.makedirs(tdir)
    log_path = os.path.join(tdir, "test.log")
    xml_path = os.path.join(tdir, "test.xml")
    undeclared = os.path.join(tdir, "test.outputs")
    annotations = os.path.join(tdir, "test.outputs_manifest")
    premature = os.path.join(tdir, "test.exited_prematurely")
    os.makedirs(undeclared)
    os.makedirs(annotations)
    tmpdir = tempfile.mkdtemp(prefix="gpu_bundle_%s_" % t["name"])

    env = _base_env(t, workspace)
    env.update({
        "TEST_TMPDIR": tmpdir,
        "TEST_SRCDIR": RUNFILES,
        "TEST_WORKSPACE": workspace,
        "TEST_TARGET": label,
        "TEST_BINARY": t["executable"][len(workspace) + 1:]
        if t["executable"].startswith(workspace + "/") else t["executable"],
        "XML_OUTPUT_FILE": xml_path,
        "TEST_UNDECLARED_OUTPUTS_DIR": undeclared,
        "TEST_UNDECLARED_OUTPUTS_ANNOTATIONS_DIR": annotations,
        "TEST_PREMATURE_EXIT_FILE": premature,
    })
    if timeout:
        env["TEST_TIMEOUT"] = str(int(timeout))
    cmd = [sys.executable, os.path.join(RUNFILES, t["main"])] + list(extra_args)
    cwd = os.path.join(RUNFILES, workspace)

    start = time.monotonic()
    timed_out = []
    with open(log_path, "wb") as log:
        log.write(("exec %s\n" % " ".join(cmd)).encode())
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)

        def pump():
            fd = proc.stdout.fileno()
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                log.write(chunk)
                log.flush()
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()

        def on_timeout():
            timed_out.append(True)
            _kill_group(proc, signal.SIGTERM)
            killer = threading.Timer(10, _kill_group, (proc, signal.SIGKILL))
            killer.daemon = True
            killer.start()

        timer = threading.Timer(timeout, on_timeout) if timeout else None
        if timer:
            timer.daemon = True
            timer.start()
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            _kill_group(proc, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            if timer:
                timer.cancel()
        # Like Bazel, end whatever the test left running, so that the log pipe closes.
        _kill_group(proc, signal.SIGKILL)
        reader.join(30)
        proc.stdout.close()
    seconds = time.monotonic() - start

    if timed_out:
        status = "TIMEOUT"
    elif rc != 0:
        status = "FAILED"
    elif os.path.exists(premature):
        status = "FAILED"  # the test framework said it exited early (TEST_PREMATURE_EXIT_FILE)
    else:
        status = "PASSED"
    if not os.path.exists(xml_path):
        _write_default_xml(xml_path, label, status, seconds, log_path)
    if keep_tmpdir:
        print("run.py: TEST_TMPDIR of %s kept at %s" % (label, tmpdir))
    else:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return {"label": label, "status": status, "exit_code": rc, "seconds": round(seconds, 3),
            "log": log_path, "xml": xml_path, "undeclared_outputs": undeclared}


def run_binary(t, workspace, extra_args):
    env = _base_env(t, workspace)
    env["BUILD_WORKING_DIRECTORY"] = os.getcwd()
    cmd = [sys.executable, os.path.join(RUNFILES, t["main"])] + list(extra_args)
    proc = subprocess.Popen(cmd, cwd=os.path.join(RUNFILES, workspace), env=env)
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        rc = proc.wait()
    return 128 - rc if rc < 0 else rc


def verify(files):
    bad = []
    for rp, meta in sorted(files.items()):
        path = os.path.join(RUNFILES, rp)
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            bad.append("%s: %s" % (rp, e))
            continue
        if digest != meta["sha256"]:
            bad.append("%s: sha256 %s, manifest says %s" % (rp, digest, meta["sha256"]))
    return bad


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        prog="run.py", description="Run a gpu_bundle's targets like bazel test / bazel run.",
        epilog="Arguments after -- go to every target run (binaries' args; for tests like "
               "--test_arg).")
    ap.add_argument("--only", action="append", default=[], metavar="LABEL",
                    help="run only this target (repeatable); '//pkg:name' or 'name'")
    ap.add_argument("--out", default="results", metavar="DIR",
                    help="test results: DIR/<pkg>/<name>/test.{log,xml}, DIR/summary.json "
                         "(default: ./results)")
    ap.add_argument("--timeout", type=float, default=0, metavar="SECONDS",
                    help="kill a test running longer than this (status TIMEOUT); 0: no limit")
    ap.add_argument("--keep_tmpdir", action="store_true",
                    help="keep each test's TEST_TMPDIR instead of deleting it")
    ap.add_argument("--list", action="store_true", help="list the bundle's targets and exit")
    ap.add_argument("--verify", action="store_true",
                    help="check every runfile against the manifest's sha256 first")
    args = ap.parse_args(argv)

    with open(os.path.join(BUNDLE, "manifest.json")) as f:
        manifest = json.load(f)
    workspace = manifest["workspace"]
    targets = manifest["targets"]

    if args.list:
        for t in targets:
            print("%-7s %s  (main %s)" % (t["kind"], t["label"], t["main"]))
        return 0
    if args.verify:
        bad = verify(manifest["files"])
        if bad:
            sys.stderr.write("run.py: the bundle is damaged:\n  %s\n" % "\n  ".join(bad[:50]))
            return 2
        print("run.py: %d files match the manifest" % len(manifest["files"]))

    chosen = _select(targets, args.only)

    binaries = [t for t in chosen if t["kind"] == "binary"]
    for t in binaries:
        rc = run_binary(t, workspace, extra)
        if rc != 0:
            return rc
    tests = [t for t in chosen if t["kind"] != "binary"]
    if not tests:
        return 0

    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    results = []
    try:
        for i, t in enumerate(tests):
            print("==> [%d/%d] %s" % (i + 1, len(tests), t["label"]), flush=True)
            results.append(run_test(t, workspace, out_dir, extra, args.timeout, args.keep_tmpdir))
    except KeyboardInterrupt:
        print("\nrun.py: interrupted", flush=True)
        for t in tests[len(results):]:
            results.append({"label": t["label"], "status": "NO STATUS", "exit_code": None,
                            "seconds": 0, "log": None, "xml": None, "undeclared_outputs": None})

    passed = sum(1 for r in results if r["status"] == "PASSED")
    failed = len(results) - passed
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump({"bundle": manifest.get("bundle"), "passed": passed, "failed": failed,
                   "results": results}, f, indent=2)
        f.write("\n")

    width = max(len(r["label"]) for r in results)
    print("\n" + "=" * 30 + " gpu_bundle summary " + "=" * 30)
    for r in results:
        extra_info = "" if r["status"] == "PASSED" or r["exit_code"] is None else \
            " (exit %s)" % r["exit_code"]
        print("%-*s  %-9s in %7.1fs  %s%s" % (width, r["label"], r["status"], r["seconds"],
                                             r["log"] or "", extra_info))
    print("%d passed, %d failed" % (passed, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
