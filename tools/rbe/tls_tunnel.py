#!/usr/bin/env python3
"""A loopback TLS tunnel for Bazel clients that cannot open grpcs:// channels themselves.

    python3 tools/rbe/tls_tunnel.py --listen 50062 --server rbe.example:443 --ca ca.crt \\
        [--cert client.crt --key client.key] [--server-name rbe.example]
    tools/bazel test --config=remote --remote_cache=grpc://127.0.0.1:50062 \\
        --remote_header=authorization="Bearer $(cat ~/.config/flashcore/rbe.jwt)" ...

Why: tools/bazel runs Debian's Bazel 7.7.1 (Debian's grpc-java 1.41 and netty, no netty-tcnative),
which fails `grpcs://` with "Failed to init TLS infrastructure: JDK provider does not support
ALPN protocol" and `--remote_proxy=unix:...` with "Creating event loop groups is unsupported on
this platform" (both seen on 2026-11-23). It speaks plain-text HTTP/2 to this tunnel on
127.0.0.1; the tunnel opens one TLS connection (ALPN h2, the server certificate checked against
--ca, optionally a client certificate for mutual TLS) per client connection and copies bytes both
ways. The token still travels inside that TLS connection (--remote_header). Standard library only.
Listens on loopback only: anyone on this machine who can reach the port uses the client
certificate, as anyone who can read the key file could.
"""

import argparse
import asyncio
import ssl
import sys


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        try:
            writer.close()
        except (ConnectionError, ssl.SSLError):
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen", type=int, required=True, metavar="PORT", help="loopback port Bazel connects to")
    ap.add_argument("--server", required=True, metavar="HOST:PORT", help="the TLS endpoint of the remote service")
    ap.add_argument("--ca", required=True, help="PEM file of the CA that signed the server certificate")
    ap.add_argument("--cert", help="PEM client certificate (mutual TLS)")
    ap.add_argument("--key", help="PEM private key of --cert")
    ap.add_argument("--server-name", help="name the server certificate must carry (default: HOST of --server)")
    a = ap.parse_args()
    host, sep, port = a.server.rpartition(":")
    if not sep or not host or not port.isdigit():
        ap.error("--server must be HOST:PORT, got %r" % a.server)
    if bool(a.cert) != bool(a.key):
        ap.error("--cert and --key go together (mutual TLS)")
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=a.ca)
    if a.cert:
        ctx.load_cert_chain(a.cert, a.key)
    ctx.set_alpn_protocols(["h2"])  # gRPC is HTTP/2

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(
                host, int(port), ssl=ctx, server_hostname=a.server_name or host)
        except (OSError, ssl.SSLError) as e:
            print("tls_tunnel: cannot reach %s: %s" % (a.server, e), file=sys.stderr, flush=True)
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    async def serve():
        server = await asyncio.start_server(handle, "127.0.0.1", a.listen)
        print("tls_tunnel: grpc://127.0.0.1:%d -> TLS %s" % (a.listen, a.server), file=sys.stderr, flush=True)
        async with server:
            await server.serve_forever()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
