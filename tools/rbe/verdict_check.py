#!/usr/bin/env python3
"""Checks, from outside BuildGrid, that the stack's ActionCache never serves a broken hit.

    <buildgrid venv>/bin/python3 tools/rbe/verdict_check.py STATE_DIR [--expect served|refused]

For every verdict stored in the stack's Redis (keys action-cache.<hash>_<size>, values serialized
ActionResults: entry-type action-result), it lists the blobs the ActionResult references (output
files, output directory trees and the files in them, stdout, stderr), asks the CAS which are
missing (FindMissingBlobs) and asks the ActionCache for the action (GetActionResult), as Bazel
does. A verdict whose blobs are not all in the CAS must be refused (NOT_FOUND); a verdict served
with a missing blob is a broken hit and fails the check. Prints one line:

    verdicts: N in Redis; S served (blobs present), R refused (blobs evicted), B broken hits

--expect served: every verdict must be served; --expect refused: every one refused (after a
cleanup that evicted all blobs). Run by tools/rbe/ci_remote.sh. Exit 0 when the check holds.
"""

import argparse
import json
import os
import sys

import grpc
import redis
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
KEY_PREFIX = b"action-cache."


def referenced_blobs(ar, cas, instance):
    """The digests an ActionResult needs from the CAS (as BuildGrid's own check lists them), and
    whether a referenced Tree could not be read (then its contents count as missing)."""
    need = {}

    def add(d):
        if d.hash and d.hash != EMPTY_SHA256:
            need[(d.hash, d.size_bytes)] = d

    for f in ar.output_files:
        add(f.digest)
    tree_unreadable = False
    for od in ar.output_directories:
        add(od.tree_digest)
        resp = cas.BatchReadBlobs(re_pb2.BatchReadBlobsRequest(instance_name=instance, digests=[od.tree_digest]))
        blob = resp.responses[0] if resp.responses else None
        if blob is None or blob.status.code != 0:
            tree_unreadable = True
            continue
        tree = re_pb2.Tree.FromString(blob.data)
        for directory in [tree.root] + list(tree.children):
            for f in directory.files:
                add(f.digest)
    if not ar.stdout_raw:
        add(ar.stdout_digest)
    if not ar.stderr_raw:
        add(ar.stderr_digest)
    return list(need.values()), tree_unreadable


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("state", help="the stack's state dir (FLASHCORE_REMOTE_STATE)")
    ap.add_argument("--expect", choices=["served", "refused"])
    a = ap.parse_args()
    with open(os.path.join(a.state, "processes.json")) as f:
        data = json.load(f)
    with open(os.path.join(a.state, "redis.secret")) as f:
        password = f.read().strip()
    store = redis.Redis(host="127.0.0.1", port=data["redis_port"], password=password)
    channel = grpc.insecure_channel("127.0.0.1:%d" % data["port"])
    cas = re_grpc.ContentAddressableStorageStub(channel)
    ac = re_grpc.ActionCacheStub(channel)
    instance = ""
    served = refused = broken = 0
    keys = sorted(store.scan_iter(match=KEY_PREFIX + b"*"))
    for key in keys:
        value = store.get(key)
        if value is None:  # deleted meanwhile (BuildGrid drops entries whose blobs are gone)
            continue
        h, size = key[len(KEY_PREFIX):].decode().rsplit("_", 1)
        action = re_pb2.Digest(hash=h, size_bytes=int(size))
        ar = re_pb2.ActionResult.FromString(value)
        need, tree_unreadable = referenced_blobs(ar, cas, instance)
        missing = list(cas.FindMissingBlobs(re_pb2.FindMissingBlobsRequest(instance_name=instance,
                                                                           blob_digests=need)).missing_blob_digests)
        complete = not missing and not tree_unreadable
        try:
            ac.GetActionResult(re_pb2.GetActionResultRequest(instance_name=instance, action_digest=action))
            hit = True
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
            hit = False
        if hit and not complete:
            broken += 1
            print("BROKEN HIT: action %s/%d served with %d of its %d blobs missing" % (h, action.size_bytes,
                                                                                      len(missing), len(need)))
        elif hit:
            served += 1
        else:
            refused += 1
            if complete:
                print("note: action %s/%d refused although its blobs are present" % (h, action.size_bytes))
    print("verdicts: %d in Redis; %d served (blobs present), %d refused (blobs evicted), %d broken hits"
          % (len(keys), served, refused, broken))
    if broken:
        return 1
    if not keys:
        print("FAILED: no verdict in Redis to check")
        return 1
    if a.expect == "served" and served != len(keys):
        print("FAILED: expected every verdict to be served")
        return 1
    if a.expect == "refused" and refused != len(keys):
        print("FAILED: expected every verdict to be refused")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
