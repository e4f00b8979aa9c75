"""Probe for the relay round trip (tools/rbe/ci_remote.sh): a test routed to gpu=relaytest.

It passes only where it was meant to run: with the test environment Bazel sends (RELAY_PROBE,
TEST_TARGET) and in the exported input root (its own source beside it). The result comes back
through the relay; its stdout marker lets the CI script find it in the test log.
"""
import os
import sys

assert os.environ.get("RELAY_PROBE") == "1", "RELAY_PROBE missing: not run through Bazel's test env"
assert os.environ.get("TEST_TARGET", "").endswith("relay_probe_test"), os.environ.get("TEST_TARGET")
here = os.path.dirname(os.path.abspath(__file__))
assert os.path.exists(os.path.join(here, "relay_probe_test.py"))
print("relay probe ran on %s (python %s)" % (os.uname().nodename, sys.version.split()[0]))
