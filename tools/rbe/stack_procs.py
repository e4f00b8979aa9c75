"""Messages and process bookkeeping of tools/remote (docs/REMOTE.md): every process the stack
starts is recorded in <state>/processes.json with its pid and kernel start time, and only those
are ever signalled."""

import json
import os
import signal
import socket
import subprocess
import sys
import time


def say(msg):
    print("flashcore remote: " + msg, file=sys.stderr, flush=True)


def die(msg, code=1):
    say("ERROR: " + msg)
    sys.exit(code)


def proc_start(pid):
    """The kernel start time of a live process (None once it exited: a zombie that this process
    spawned and has not reaped yet counts as exited)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def alive(rec):
    return rec and proc_start(rec["pid"]) == rec["start"]


def load_state(st):
    try:
        with open(os.path.join(st, "processes.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def save_state(st, data):
    p = os.path.join(st, "processes.json")
    with open(p + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
    os.replace(p + ".tmp", p)


def spawn(st, data, name, cmd, env=None, cwd=None, preexec=None):
    log = os.path.join(st, "logs", name + ".log")
    lf = open(log, "a")
    lf.write("\n==== %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S"), " ".join(cmd)))
    lf.flush()
    p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         env=env, cwd=cwd, start_new_session=True, preexec_fn=preexec)
    lf.close()
    start = None
    for _ in range(50):
        start = proc_start(p.pid)
        if start:
            break
        time.sleep(0.01)
    data["procs"][name] = {"pid": p.pid, "start": start, "cmd": cmd, "log": log}
    save_state(st, data)
    return p


def stop(rec, name, timeout=15):
    if not alive(rec):
        return False
    pid = rec["pid"]
    sig = signal.SIGINT if name == "postgres" else signal.SIGTERM  # postgres: "fast" shutdown
    try:
        os.killpg(pid, sig)
    except OSError:
        try:
            os.kill(pid, sig)
        except OSError:
            return False
    t0 = time.time()
    while time.time() - t0 < timeout and alive(rec):
        time.sleep(0.2)
    if alive(rec):
        say("%s (pid %d) did not stop on SIGTERM; SIGKILL" % (name, pid))
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    return True


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def wait_for(pred, what, timeout, rec=None, log=None):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return
        if rec is not None and not alive(rec):
            break
        time.sleep(0.3)
    tail = ""
    if log and os.path.exists(log):
        tail = "\n" + "\n".join("  | " + t for t in open(log, errors="replace").read().splitlines()[-20:])
    die("%s did not come up within %d s (log: %s)%s" % (what, timeout, log, tail))
