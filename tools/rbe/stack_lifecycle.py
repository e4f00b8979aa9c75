"""tools/remote up, down, status, logs and cas-cleanup (docs/REMOTE.md): `up` starts the stack's
processes in dependency order (PostgreSQL, Redis, BuildGrid and its CAS cleanup, buildbox-casd,
the CPU workers, the relay workers) and records each in <state>/processes.json; `down` stops the
recorded ones in the reverse order; the other commands inspect or act on the running stack. The
installs `up` needs come from stack_setup.py, the generated files from stack_config.py."""

import glob
import hashlib
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time

import stack_config
from stack_paths import RBE, ROOT, state_dir
from stack_procs import alive, die, free_port, load_state, port_open, save_state, say, spawn, stop, wait_for
from stack_setup import setup_buildbox, setup_redis, setup_venv
from stack_store import (cas_cleanup_pass, cas_dir, pg_bindir, print_store_status, start_redis, validate_strictly,
                         write_private)

# The endpoint .bazelrc's --config=rbe and --config=remote name (grpc://127.0.0.1:50061): a stack
# on any other port needs --remote_executor/--remote_cache on the command line (`up` says so).
DEFAULT_PORT = 50061
# As root, PostgreSQL runs as another user, so its cluster cannot live in root's state dir: it
# goes here instead (kept across reboots, unlike /tmp), named after the state dir.
PG_ROOT_PARENT = "/var/tmp"


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


# --------------------------------------------------------------------------------------------
# down, status, logs, cas-cleanup
# --------------------------------------------------------------------------------------------
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

