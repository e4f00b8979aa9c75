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
This file is the command line only: up/down/status/logs/cas-cleanup are in tools/rbe/stack_lifecycle.py
(the one-time installs `up` needs in stack_setup.py), relay in relay_exchange.py, test/report in
gpu_test_commands.py (the cost line itself in gpu_report.py). The generated configuration files
come from stack_config.py; paths are in stack_paths.py, process bookkeeping in stack_procs.py,
the ActionCache/CAS stores in stack_store.py.
Only processes recorded in <state>/processes.json (pid + kernel start time) are ever stopped.
"""

import argparse
import os
import sys

import stack_config
from gpu_test_commands import cmd_report, cmd_test
from relay_exchange import cmd_relay
from stack_lifecycle import DEFAULT_PORT, cmd_cas_cleanup, cmd_down, cmd_logs, cmd_status, cmd_up


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
                   # argparse %-formats help itself: "%%" here prints "%", and the default comes from it.
                   help="CAS size at which BuildGrid's cleanup evicts least recently used blobs, down to 80%% "
                        "(default %(default)s; K/M/G/T suffixes, decimal)")
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
