"""tools/remote test and tools/remote report (docs/REMOTE.md section 5): the GPU cost line of
gpu_report.py for a Bazel test run, and, when a remote job found no worker, which gpu=<kind>
nothing advertises (from the stack's recorded processes), so a missing worker reads as such
rather than as a bare scheduler timeout."""

import os
import subprocess
import sys

from gpu_report import bep_tags, gpu_report
from stack_paths import ROOT, state_dir
from stack_procs import alive, die, load_state, say


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

