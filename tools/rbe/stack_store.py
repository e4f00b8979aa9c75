"""The stores behind tools/remote's verdicts (docs/REMOTE.md section 2a): Redis, which holds the
ActionCache, and BuildGrid's CAS index in PostgreSQL with its cleanup; the stack's processes
themselves are started by tools/rbe/stack_lifecycle.py."""

import glob
import hashlib
import os
import shutil
import subprocess
import time

import stack_config
from stack_procs import alive, die, save_state, say, spawn, stop, wait_for


def pg_bindir():
    env = os.environ.get("FLASHCORE_PG_BIN")
    cands = [env] if env else sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                                     key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
                                     reverse=True)
    for c in cands:
        if c and os.access(os.path.join(c, "initdb"), os.X_OK) and os.access(os.path.join(c, "pg_ctl"), os.X_OK):
            return c
    die("no PostgreSQL server binaries found (BuildGrid 0.4.4's scheduler needs PostgreSQL): install "
        "the Debian package 'postgresql' (apt-get install postgresql), or set FLASHCORE_PG_BIN to a "
        "directory with initdb and pg_ctl")


def write_private(path, text):
    """Configuration files that carry (or point at) the Redis password: owner-only."""
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def cas_dir(st):
    """<state>/cas, whose every blob is in BuildGrid's sql index. A CAS written before the index
    existed holds blobs no index row points at (never served, never evicted): dropped once."""
    cas = os.path.join(st, "cas")
    marker = os.path.join(st, "cas.indexed")
    if os.path.isdir(cas) and not os.path.exists(marker):
        say("%s predates the CAS index (its blobs could never be evicted): removing it" % cas)
        shutil.rmtree(cas)
    os.makedirs(cas, exist_ok=True)
    open(marker, "a").close()
    return cas


def redis_cli(data, *args):
    """redis-cli against the stack's Redis (the password goes in the environment, not argv)."""
    with open(os.path.join(data["state"], "redis.secret")) as f:
        env = dict(os.environ, REDISCLI_AUTH=f.read().strip())
    return subprocess.run([os.path.join(data["redis"], "usr", "bin", "redis-cli"), "-h", "127.0.0.1", "-p",
                           str(data["redis_port"])] + list(args), capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL)


def start_redis(st, data, prefix, port):
    """redis-server with its append-only file in <state>/redis; returns the password file."""
    rdir = os.path.join(st, "redis")
    os.makedirs(rdir, mode=0o700, exist_ok=True)
    secret = os.path.join(st, "redis.secret")
    if not os.path.exists(secret):
        write_private(secret, hashlib.sha256(os.urandom(32)).hexdigest() + "\n")
    with open(secret) as f:
        password = f.read().strip()
    conf = os.path.join(st, "redis.conf")
    write_private(conf, stack_config.redis_conf(port, rdir, password))
    spawn(st, data, "redis", [os.path.join(prefix, "usr", "bin", "redis-server"), conf])
    # Ready once it answers PING (while it replays its append-only file it answers LOADING).
    wait_for(lambda: redis_cli(data, "ping").stdout.strip() == "PONG", "redis-server", 60,
             data["procs"]["redis"], data["procs"]["redis"]["log"])
    return secret


def validate_strictly(venv, cfg):
    """`bgd server start` checks its configuration against BuildGrid's schema with unknown keys
    refused; `bgd cleanup start` does not (a misspelt key would be ignored): check it here."""
    r = subprocess.run([os.path.join(venv, "bin", "python3"), "-c",
                        "import sys\nfrom buildgrid.server.app.settings.parser import validate_config\n"
                        "validate_config(sys.argv[1], strict=True)", cfg], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    if r.returncode:
        die("%s does not match BuildGrid's schema:\n%s" % (cfg, (r.stdout + r.stderr)[-2000:]))


def human(n):
    return "%.2f GB" % (n / 1e9) if n >= 1e8 else "%.1f MB" % (n / 1e6)


def cas_index_size(data):
    """(bytes, blobs) that BuildGrid's CAS index holds: what its cleanup compares to the watermarks."""
    r = subprocess.run([os.path.join(pg_bindir(), "psql"), "-h", "127.0.0.1", "-p", str(data["pg_port"]), "-U", "bgd",
                        "-d", "bgd", "-tA", "-F", " ", "-c",
                        'SELECT coalesce(sum(digest_size_bytes), 0), count(*) FROM "index"'],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if r.returncode:
        die("cannot read the CAS index size: " + (r.stderr or r.stdout).strip()[-300:])
    size, blobs = r.stdout.split()
    return int(size), int(blobs)


def print_store_status(st, data):
    """The CAS index size against its watermarks and the number of verdicts, for tools/remote status."""
    if alive(data["procs"].get("postgres")) and "cas_limit" in data:
        size, blobs = cas_index_size(data)
        high, low, _ = stack_config.cas_watermarks(data["cas_limit"])
        print("  CAS: %s in %d blobs (cleanup from %s down to %s)" % (human(size), blobs, human(high), human(low)))
    if alive(data["procs"].get("redis")):
        n = redis_cli(data, "dbsize").stdout.strip()
        print("  ActionCache: %s verdict(s) in Redis (append-only file, fsync always: %s/redis)" % (n, st))


def cas_cleanup_pass(st, data, target, keep_recent, timeout):
    """One pass of BuildGrid's own CAS cleanup (`bgd cleanup start` over the stack's index, with
    watermarks target + 1 / target) evicting least recently used blobs not used in the last
    keep_recent seconds; the verdicts that referenced them become misses (BuildGrid checks before
    serving a hit). Returns 0 when the index got down to target bytes, 5 otherwise."""
    before = cas_index_size(data)
    if before[0] <= target:
        print("CAS: %s in %d blobs, not above %s: nothing to evict" % (human(before[0]), before[1], human(target)))
        return 0
    cfg = os.path.join(st, "cas-cleanup-now.yml")
    write_private(cfg, stack_config.cleanup_yml(data["pg_port"], os.path.join(st, "cas"), target + 1, target,
                                                stack_config.CAS_BATCH_BYTES, keep_recent))
    validate_strictly(data["venv"], cfg)
    log = os.path.join(st, "logs", "cas-cleanup-now.log")
    offset = os.path.getsize(log) if os.path.exists(log) else 0
    spawn(st, data, "cas-cleanup-now", [os.path.join(data["venv"], "bin", "bgd"), "cleanup", "start", "-vv", cfg,
                                        "--sleep-interval", "1"])
    rec = data["procs"]["cas-cleanup-now"]
    outcome = "timed out after %d s" % timeout
    t0 = time.time()
    while time.time() - t0 < timeout:
        with open(log, errors="replace") as f:
            f.seek(offset)
            new = f.read()
        if "Finished cleanup." in new:
            outcome = None
            break
        if "Marked 0 digests for deletion" in new:
            outcome = "the remaining blobs were used in the last %d s (--keep-recent)" % keep_recent
            break
        if not alive(rec):
            outcome = "bgd cleanup exited (log %s)" % log
            break
        time.sleep(0.3)
    stop(rec, "cas-cleanup-now")
    del data["procs"]["cas-cleanup-now"]
    save_state(st, data)
    after = cas_index_size(data)
    print("CAS: %s in %d blobs -> %s in %d blobs (target %s)" % (human(before[0]), before[1], human(after[0]),
                                                               after[1], human(target)))
    if outcome:
        say("the cleanup pass did not reach the target: " + outcome)
        return 5
    return 0
