#!/usr/bin/env python3
"""Checks the shared-service set-up of docs/REMOTE.md section 7 against BuildGrid 0.4.4 itself:
TLS with client certificates, JWT authentication and an ACL under which CI may write verdicts
and developers may only read them.

    <buildgrid venv>/bin/python3 tools/rbe/shared_service_check.py [--serve SECONDS]

It makes a throw-away CA, server and client certificates (the venv's `cryptography`), an HS256
secret and tokens (`pyjwt`), starts `bgd server start` on a free loopback port with the
configuration printed below (in-memory storage: the point is the channel and the ACL), and
checks, as a REAPI client:
  - a plain-text channel and a TLS channel without a client certificate are refused;
  - with a client certificate but no token: UNAUTHENTICATED;
  - a developer's token: GetActionResult and FindMissingBlobs answered, UpdateActionResult refused;
  - CI's token: UpdateActionResult accepted, and the developer then reads that verdict;
  - an expired token: UNAUTHENTICATED;
  - through tools/rbe/tls_tunnel.py (plain text on loopback, mutual TLS to the server), the
    developer reads that verdict and still cannot write one.
Prints one line per check; exit 0 when all hold. With --serve, the server then stays up that long
and the Bazel flags of a CI client and of a developer (with tokens) are printed, to try Bazel
against it. tools/rbe/ci_remote.sh runs it (a few seconds), so a BuildGrid upgrade that changes
these features fails CI.
"""

import argparse
import datetime
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import grpc
import jwt
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

CONFIG = """\
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: false
    credentials:
      tls-server-key: {d}/server.key
      tls-server-cert: {d}/server.crt
      tls-client-certs: {d}/ca.crt       # mutual TLS: clients must present a certificate of this CA

authorization:
  method: jwt
  algorithm: hs256
  secret: {d}/jwt.secret                 # a file holding the HMAC key
  acl-config: {d}/acl.yml

storages:
  - !lru-storage &cas
    size: 64M

caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 100
    allow-updates: true
    cache-failed-actions: false

instances:
  - name: ''
    services:
      - !action-cache
        cache: *ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
"""

ACL = """\
# instance name -> who may call which method (subject/actor/workflow are regexes on the JWT's
# sub/act/aud claims; requests are the REAPI method names)
"":
  allow:
    - subject: "^ci$"                     # CI: every request, UpdateActionResult included
    - subject: "^dev-"                    # developers: read verdicts and blobs, upload inputs,
      requests: [GetCapabilities, GetActionResult, FindMissingBlobs, BatchReadBlobs, GetTree,
                 Read, BatchUpdateBlobs, Write, QueryWriteStatus, Execute, WaitExecution]
"""


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files in d."""
    now = datetime.datetime.now(datetime.timezone.utc)

    def cert(subject_cn, key, issuer_cn, issuer_key, ca=False, san=None):
        b = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject_cn)]))
             .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_cn)]))
             .public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if san:
            b = b.add_extension(x509.SubjectAlternativeName(san), critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    def write(name, obj):
        with open(os.path.join(d, name), "wb") as f:
            if isinstance(obj, x509.Certificate):
                f.write(obj.public_bytes(serialization.Encoding.PEM))
            else:
                f.write(obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))

    import ipaddress
    ca_key = ec.generate_private_key(ec.SECP256R1())
    write("ca.crt", cert("flashcore-check-ca", ca_key, "flashcore-check-ca", ca_key, ca=True))
    for name, san in (("server", [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
                      ("client", None)):
        key = ec.generate_private_key(ec.SECP256R1())
        write(name + ".key", key)
        write(name + ".crt", cert("flashcore-check-" + name, key, "flashcore-check-ca", ca_key, san=san))


def read(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", type=int, default=0, metavar="SECONDS",
                    help="keep the server up this long after the checks and print Bazel flags for it")
    a = ap.parse_args()
    bgd = os.path.join(os.path.dirname(sys.executable), "bgd")
    d = tempfile.mkdtemp(prefix="flashcore-shared-check.")
    server = None
    failures = 0

    def check(what, ok):
        nonlocal failures
        print("%s  %s" % ("ok  " if ok else "FAIL", what))
        failures += not ok

    try:
        make_pki(d)
        secret = os.urandom(32).hex()
        with open(os.path.join(d, "jwt.secret"), "w") as f:
            f.write(secret)
        with open(os.path.join(d, "acl.yml"), "w") as f:
            f.write(ACL)
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        cfg = os.path.join(d, "buildgrid.yml")
        with open(cfg, "w") as f:
            f.write(CONFIG.format(port=port, d=d))
        log = open(os.path.join(d, "server.log"), "w")
        server = subprocess.Popen([bgd, "server", "start", "-v", cfg], stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.1)
        else:
            raise SystemExit("bgd did not listen on %d" % port)
        if server.poll() is not None:
            sys.stdout.write(open(os.path.join(d, "server.log")).read())
            raise SystemExit("bgd server exited")

        def token(sub, ttl=600):
            return jwt.encode({"sub": sub, "exp": int(time.time()) + ttl}, secret, algorithm="HS256")

        def stubs(channel):
            return re_grpc.ActionCacheStub(channel), re_grpc.ContentAddressableStorageStub(channel)

        def call(fn, req, tok=None):
            md = [("authorization", "Bearer " + tok)] if tok else None
            try:
                fn(req, metadata=md, timeout=10)
                return "OK"
            except grpc.RpcError as e:
                return e.code().name

        action = re_pb2.Digest(hash="ab" * 32, size_bytes=142)
        get = re_pb2.GetActionResultRequest(action_digest=action)
        put = re_pb2.UpdateActionResultRequest(action_digest=action, action_result=re_pb2.ActionResult(exit_code=0))
        fmb = re_pb2.FindMissingBlobsRequest(blob_digests=[action])
        addr = "127.0.0.1:%d" % port

        ac, _ = stubs(grpc.insecure_channel(addr))
        r = call(ac.GetActionResult, get, token("dev-alice"))
        check("plain-text channel refused (%s)" % r, r == "UNAVAILABLE")
        no_cert = grpc.ssl_channel_credentials(root_certificates=read(d, "ca.crt"))
        ac, _ = stubs(grpc.secure_channel(addr, no_cert))
        r = call(ac.GetActionResult, get, token("dev-alice"))
        check("TLS without a client certificate refused (%s)" % r, r == "UNAVAILABLE")
        creds = grpc.ssl_channel_credentials(root_certificates=read(d, "ca.crt"), private_key=read(d, "client.key"),
                                             certificate_chain=read(d, "client.crt"))
        ac, cas = stubs(grpc.secure_channel(addr, creds))
        r = call(ac.GetActionResult, get)
        check("mutual TLS, no token: GetActionResult %s" % r, r == "UNAUTHENTICATED")
        r = call(ac.GetActionResult, get, token("dev-alice"))
        check("developer: GetActionResult answered (%s: no verdict yet)" % r, r == "NOT_FOUND")
        r = call(cas.FindMissingBlobs, fmb, token("dev-alice"))
        check("developer: FindMissingBlobs %s" % r, r == "OK")
        r = call(ac.UpdateActionResult, put, token("dev-alice"))
        check("developer: UpdateActionResult refused (%s)" % r, r == "UNAUTHENTICATED")
        r = call(ac.UpdateActionResult, put, token("ci"))
        check("CI: UpdateActionResult %s" % r, r == "OK")
        r = call(ac.GetActionResult, get, token("dev-alice"))
        check("developer: reads CI's verdict (%s)" % r, r == "OK")
        r = call(ac.GetActionResult, get, token("dev-alice", ttl=-60))
        check("expired token: %s" % r, r == "UNAUTHENTICATED")
        r = call(ac.GetActionResult, get, jwt.encode({"sub": "ci", "exp": int(time.time()) + 600}, os.urandom(32).hex(),
                                                     algorithm="HS256"))
        check("token signed with another key: %s" % r, r == "UNAUTHENTICATED")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        tport = s.getsockname()[1]
        s.close()
        tunnel = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                "tls_tunnel.py"),
                                   "--listen", str(tport), "--server", addr, "--ca", os.path.join(d, "ca.crt"),
                                   "--cert", os.path.join(d, "client.crt"), "--key", os.path.join(d, "client.key")],
                                  stderr=subprocess.PIPE, text=True)
        try:
            tunnel.stderr.readline()  # "tls_tunnel: grpc://127.0.0.1:PORT -> ..." once it listens
            ac, _ = stubs(grpc.insecure_channel("127.0.0.1:%d" % tport))
            r = call(ac.GetActionResult, get, token("dev-alice"))
            check("through tls_tunnel.py: developer reads CI's verdict (%s)" % r, r == "OK")
            r = call(ac.UpdateActionResult, put, token("dev-alice"))
            check("through tls_tunnel.py: developer's UpdateActionResult refused (%s)" % r, r == "UNAUTHENTICATED")
        finally:
            tunnel.terminate()
            tunnel.wait(10)
        if a.serve:
            tls = "--tls_certificate={d}/ca.crt --tls_client_certificate={d}/client.crt " \
                  "--tls_client_key={d}/client.key".format(d=d)
            print("serving on grpcs://%s for %d s; Bazel flags:" % (addr, a.serve))
            for who in ("ci", "dev-alice"):
                print("  %s: --remote_cache=grpcs://%s %s '--remote_header=authorization=Bearer %s'"
                      % (who, addr, tls, token(who, ttl=a.serve + 600)))
            sys.stdout.flush()
            time.sleep(a.serve)
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(d, ignore_errors=True)
    print("%s: %d check(s) failed" % ("FAILED" if failures else "all checks passed", failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
