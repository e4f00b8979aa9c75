"""Runner of a relay worker (buildbox-worker --buildbox-run=<this>): a GPU that cannot reach the
server. Runs in the BuildGrid venv (REAPI protos + CAS client), on the CPU machine.

buildbox-worker takes the lease from BuildGrid and calls its runner as it would call
buildbox-run-hosttools (`--action=FILE --action-result=FILE ...`). Instead of executing, this
runner
  1. exports the action - Action, Command, and the input root fetched from the CAS - to
     <relay>/outbox/<action-sha256>.action.tar.gz (manifest.json + input/), a self-contained
     tarball that tools/rbe/action_runner.py executes on the GPU machine;
  2. waits for <relay>/inbox/<action-sha256>.result.tar.gz (`tools/remote relay import`);
  3. uploads the outputs, stdout and stderr to the CAS and writes the ActionResult, so the
     worker completes the lease: Bazel's waiting `test` gets the real verdict and BuildGrid's
     ActionCache remembers it.
The lease stays EXECUTING meanwhile (buildbox-worker keeps the bot session alive).
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import sys
import tarfile
import tempfile
import time

from google.protobuf import timestamp_pb2

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid.server.client.cas import download, upload
from buildgrid.server.client.channel import setup_channel

FORMAT = 1


def log(msg):
    print("[relay_run %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--relay-dir", required=True)
    ap.add_argument("--kind", required=True)
    ap.add_argument("--cas", required=True)
    ap.add_argument("--action")
    ap.add_argument("--action-result")
    ap.add_argument("--validate-parameters", action="store_true")
    ap.add_argument("--wait-seconds", type=float, default=float(os.environ.get("FLASHCORE_RELAY_WAIT_S", 6 * 3600)))
    a, _unknown = ap.parse_known_args(argv)  # buildbox-worker's own runner options (--remote=...) are not needed
    if a.validate_parameters:
        return 0
    if not a.action or not a.action_result:
        log("--action and --action-result are required")
        return 2
    raw = open(a.action, "rb").read()
    action = re_pb2.Action()
    action.ParseFromString(raw)
    name = hashlib.sha256(raw).hexdigest()
    outbox = os.path.join(a.relay_dir, "outbox")
    inbox = os.path.join(a.relay_dir, "inbox")
    done = os.path.join(a.relay_dir, "done")
    for d in (outbox, inbox, done):
        os.makedirs(d, exist_ok=True)
    exported = os.path.join(outbox, name + ".action.tar.gz")
    result_tgz = os.path.join(inbox, name + ".result.tar.gz")

    def on_term(signum, frame):
        log("stopped (signal %d) while waiting for %s; withdrawing the export" % (signum, name))
        try:
            os.remove(exported)
        except OSError:
            pass
        sys.exit(1)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    channel, _ = setup_channel(a.cas)
    work = tempfile.mkdtemp(prefix="relay-%s-" % name[:12])
    try:
        with download(channel, instance="") as dl:
            command = dl.get_message(action.command_digest, re_pb2.Command())
            dl.download_directory(action.input_root_digest, os.path.join(work, "input"))
        manifest = {
            "format": FORMAT,
            "action_sha256": name,
            "action_digest": "%s/%d" % (hashlib.sha256(raw).hexdigest(), len(raw)),
            "kind": a.kind,
            "arguments": list(command.arguments),
            "environment": [[v.name, v.value] for v in command.environment_variables],
            "working_directory": command.working_directory,
            "output_paths": list(command.output_paths),
            "output_files": list(command.output_files),
            "output_directories": list(command.output_directories),
            "timeout_s": (action.timeout.seconds + action.timeout.nanos / 1e9) if action.HasField("timeout") else None,
            "platform": [[p.name, p.value] for p in (action.platform.properties or command.platform.properties)],
            "exported_at": time.time(),
        }
        with open(os.path.join(work, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        tmp = exported + ".tmp"
        with tarfile.open(tmp, "w:gz") as tf:
            tf.add(os.path.join(work, "manifest.json"), "manifest.json")
            tf.add(os.path.join(work, "input"), "input")
        os.replace(tmp, exported)
        label = next((v for k, v in manifest["environment"] if k == "TEST_TARGET"), None)
        log("exported %s (%s%d bytes) for gpu=%s; waiting for %s" % (
            exported, (label + ", ") if label else "", os.path.getsize(exported), a.kind, result_tgz))

        t0 = time.time()
        while not os.path.exists(result_tgz):
            if time.time() - t0 > a.wait_seconds:
                log("no result for %s after %d s (FLASHCORE_RELAY_WAIT_S); giving up" % (name, a.wait_seconds))
                os.remove(exported)
                return 1
            time.sleep(1)
        res_dir = os.path.join(work, "result")
        with tarfile.open(result_tgz) as tf:
            for m in tf.getmembers():
                if m.name.startswith("/") or ".." in m.name.split("/"):
                    raise ValueError("unsafe path in %s: %s" % (result_tgz, m.name))
            tf.extractall(res_dir)
        res = json.load(open(os.path.join(res_dir, "result.json")))
        if res.get("action_sha256") != name:
            raise ValueError("%s answers action %s, not %s" % (result_tgz, res.get("action_sha256"), name))
        ar = re_pb2.ActionResult()
        ar.exit_code = int(res["exit_code"])
        outs = os.path.join(res_dir, "outputs")
        with upload(channel, instance="") as up:
            with open(os.path.join(res_dir, "stdout"), "rb") as f:
                ar.stdout_digest.CopyFrom(up.put_blob(f))
            with open(os.path.join(res_dir, "stderr"), "rb") as f:
                ar.stderr_digest.CopyFrom(up.put_blob(f))
            for o in res["outputs"]["files"]:
                d = up.upload_file(os.path.join(outs, o["path"]), queue=False)
                ar.output_files.add(path=o["path"], digest=d, is_executable=bool(o["executable"]))
            for p in res["outputs"]["directories"]:
                d = up.upload_tree(os.path.join(outs, p), queue=False)
                ar.output_directories.add(path=p, tree_digest=d)
            for s in res["outputs"].get("symlinks", []):
                ar.output_symlinks.add(path=s["path"], target=s["target"])
            up.flush()
        md = ar.execution_metadata
        md.worker = "relay gpu=%s via %s" % (a.kind, res.get("host", "?"))
        for field, key in (("execution_start_timestamp", "start"), ("execution_completed_timestamp", "end")):
            if res.get(key):
                ts = timestamp_pb2.Timestamp()
                ts.FromNanoseconds(int(res[key] * 1e9))
                getattr(md, field).CopyFrom(ts)
        with open(a.action_result, "wb") as f:
            f.write(ar.SerializeToString())
        shutil.move(result_tgz, os.path.join(done, os.path.basename(result_tgz)))
        try:
            os.remove(exported)
        except OSError:
            pass
        log("imported %s: exit %d%s, %.1f s on %s" % (name, ar.exit_code, " (TIMEOUT)" if res.get("timed_out") else "",
                                                   res.get("end", 0) - res.get("start", 0), res.get("host", "?")))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
