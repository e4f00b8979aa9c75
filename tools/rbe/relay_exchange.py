"""tools/remote relay list | export DIR | import FILE... (docs/REMOTE.md): the CPU machine's side
of the GPU relay. The relay worker's runner (relay_run.py) leaves each gpu=<kind> action in
<state>/relay/outbox; `export` copies them, with action_runner.py, to what is carried to the
air-gapped GPU machine, and `import` puts the results brought back into <state>/relay/inbox,
where the waiting runner completes the action."""

import glob
import os
import shutil

from stack_paths import RBE, state_dir
from stack_procs import die


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

