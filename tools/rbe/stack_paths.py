"""Where tools/remote's stack lives (docs/REMOTE.md): the repository it was started from, the
cache shared with tools/bazel, and the state directory of one stack. Every other part of
tools/remote (set-up, up/down/status, relay, test/report) resolves its paths here, so the
environment variables that move them (FLASHCORE_CACHE, XDG_CACHE_HOME, FLASHCORE_REMOTE_STATE)
are read in one place."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RBE = os.path.join(ROOT, "tools", "rbe")


def cache_root():
    c = os.environ.get("FLASHCORE_CACHE")
    if not c:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        c = os.path.join(base, "flashcore")
    return os.path.abspath(c)


def state_dir():
    return os.path.abspath(os.environ.get("FLASHCORE_REMOTE_STATE") or os.path.join(cache_root(), "remote"))
