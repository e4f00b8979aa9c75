#!/usr/bin/env python3
"""Run remote-execution actions exported by a relay worker (tools/rbe/relay_run.py), on a machine
that cannot reach the server: the GPU side of the relay. Python 3.8+ standard library only.

    python3 action_runner.py --out RESULTS_DIR ACTION.action.tar.gz|DIR...

Each <sha>.action.tar.gz holds manifest.json (the REAPI Command: arguments, environment,
working directory, output paths; the Action's timeout) and input/ (the input root). It is run
as buildbox-run-hosttools runs an action:
  - the input root is staged in a fresh directory; the command runs in
    input/<working_directory>, with the parent directories of every output path created;
  - environment: this process's environment with the Command's variables set on top
    (--clearenv: only the Command's variables, like hosttools --clearenv);
  - argv[0] with a '/' is relative to the working directory, otherwise looked up in the
    Command's PATH;
  - stdout and stderr are captured to files; the exit code is recorded (a signal N as 128+N);
  - with a timeout, the process group is killed (SIGKILL) when it expires: timed_out=true;
  - every declared output that exists afterwards is collected: regular files (with the
    executable bit), directories (whole trees), symlinks (as symlinks).
Each result is written to RESULTS_DIR/<sha>.result.tar.gz (result.json, stdout, stderr,
outputs/...), for `tools/remote relay import` on the CPU machine. Exit status: 0 when every
action ran (whatever its own exit code), 1 when an action could not be run at all.
"""

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

FORMAT = 1


def safe_extract(tf, dest):
    for m in tf.getmembers():
        if m.name.startswith("/") or ".." in m.name.split("/"):
            raise ValueError("unsafe path in archive: %s" % m.name)
        if m.issym() or m.islnk():
            if m.linkname.startswith("/") and m.islnk():
                raise ValueError("unsafe link in archive: %s" % m.name)
    tf.extractall(dest)


def resolve_argv0(argv0, cwd, env):
    if "/" in argv0:
        return argv0  # relative to the working directory: the child chdirs before execve
    # like execvp in the child, which already is in the working directory
    path = os.pathsep.join(os.path.join(cwd, d) for d in env.get("PATH", os.defpath).split(os.pathsep))
    found = shutil.which(argv0, path=path)
    return found or argv0


def run_action(tgz, out_dir, clearenv=False, keep=False, log=print):
    base = os.path.basename(tgz)
    if not base.endswith(".action.tar.gz"):
        raise ValueError("%s is not an exported action (NAME.action.tar.gz)" % tgz)
    work = tempfile.mkdtemp(prefix="action-")
    try:
        with tarfile.open(tgz) as tf:
            safe_extract(tf, work)
        with open(os.path.join(work, "manifest.json")) as f:
            m = json.load(f)
        if m.get("format") != FORMAT:
            raise ValueError("%s: manifest format %r, this runner reads %d" % (tgz, m.get("format"), FORMAT))
        name = m["action_sha256"]
        root = os.path.join(work, "input")
        os.makedirs(root, exist_ok=True)
        cwd = os.path.normpath(os.path.join(root, m.get("working_directory") or ""))
        outputs = list(dict.fromkeys(m.get("output_paths") or (m.get("output_files", []) + m.get("output_directories", []))))
        os.makedirs(cwd, exist_ok=True)
        for p in outputs:
            parent = os.path.dirname(os.path.join(cwd, p))
            os.makedirs(parent, exist_ok=True)
        env = {} if clearenv else dict(os.environ)
        for k, v in m["environment"]:
            env[k] = v
        argv = list(m["arguments"])
        if not argv:
            raise ValueError("%s: empty command" % tgz)
        exe = resolve_argv0(argv[0], cwd, env)
        timeout = m.get("timeout_s") or None
        res_dir = os.path.join(work, "result")
        os.makedirs(os.path.join(res_dir, "outputs"))
        label = next((v for k, v in m["environment"] if k == "TEST_TARGET"), None) or argv[0]
        log("running %s (%s) for gpu=%s%s" % (name[:12], label, m.get("kind"),
                                               ", timeout %ds" % timeout if timeout else ""))
        timed_out = False
        start = time.time()
        with open(os.path.join(res_dir, "stdout"), "wb") as so, open(os.path.join(res_dir, "stderr"), "wb") as se:
            try:
                p = subprocess.Popen(argv, executable=exe, cwd=cwd, env=env, stdout=so, stderr=se,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
            except OSError as e:
                se.write(("action_runner: cannot execute %s: %s\n" % (argv[0], e)).encode())
                p = None
                rc = 127
            if p is not None:
                try:
                    rc = p.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except OSError:
                        pass
                    rc = p.wait()
                    se.write(("action_runner: killed after the action's timeout of %s s\n" % timeout).encode())
                if rc < 0:
                    rc = 128 - rc
        end = time.time()
        files, dirs, links = [], [], []
        for p in outputs:
            src = os.path.join(cwd, p)
            dst = os.path.join(res_dir, "outputs", p)
            if os.path.islink(src):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                links.append({"path": p, "target": os.readlink(src)})
            elif os.path.isfile(src):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
                files.append({"path": p, "executable": os.access(src, os.X_OK)})
            elif os.path.isdir(src):
                shutil.copytree(src, dst, symlinks=True)
                dirs.append(p)
        result = {"format": FORMAT, "action_sha256": name, "exit_code": rc, "timed_out": timed_out,
                  "start": start, "end": end, "host": socket.gethostname(), "label": label,
                  "outputs": {"files": files, "directories": dirs, "symlinks": links}}
        with open(os.path.join(res_dir, "result.json"), "w") as f:
            json.dump(result, f, indent=1)
        os.makedirs(out_dir, exist_ok=True)
        dst = os.path.join(out_dir, name + ".result.tar.gz")
        with tarfile.open(dst + ".tmp", "w:gz") as tf:
            for entry in sorted(os.listdir(res_dir)):
                tf.add(os.path.join(res_dir, entry), entry)
        os.replace(dst + ".tmp", dst)
        log("  -> exit %d%s in %.1f s, %d output file(s), %d dir(s): %s" % (
            rc, " (TIMEOUT)" if timed_out else "", end - start, len(files), len(dirs), dst))
        return result
    finally:
        if keep:
            log("  kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="*.action.tar.gz files or directories holding them")
    ap.add_argument("--out", required=True, help="directory for the *.result.tar.gz files")
    ap.add_argument("--clearenv", action="store_true", help="run with only the Command's environment")
    ap.add_argument("--keep", action="store_true", help="keep the staging directories")
    a = ap.parse_args(argv)
    tgzs = []
    for p in a.inputs:
        tgzs += sorted(glob.glob(os.path.join(p, "*.action.tar.gz"))) if os.path.isdir(p) else [p]
    if not tgzs:
        print("action_runner: no *.action.tar.gz in %s" % a.inputs, file=sys.stderr)
        return 1
    bad = 0
    summary = []
    for t in tgzs:
        try:
            r = run_action(t, a.out, clearenv=a.clearenv, keep=a.keep)
            summary.append("%s exit=%d%s %.1fs" % (r["label"], r["exit_code"], " TIMEOUT" if r["timed_out"] else "",
                                                  r["end"] - r["start"]))
        except Exception as e:  # one broken export must not stop the others
            bad += 1
            print("action_runner: %s: %s" % (t, e), file=sys.stderr)
    print("action_runner: %d action(s) run, %d could not be run" % (len(tgzs) - bad, bad))
    for s in summary:
        print("  " + s)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
