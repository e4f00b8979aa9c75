"""Example test for the gpu_bundle self-test. Passes under `bazel test` and under bundle/run.py;
fails on purpose when EXAMPLE_SHOULD_FAIL=1 (set by the example_fail_test target's env)."""

import os
import sys
import unittest

import gpu_bundle_example_greeting  # from example_lib, through its imports = ["."]

_VARS = ("TEST_TMPDIR", "XML_OUTPUT_FILE", "TEST_SRCDIR", "TEST_WORKSPACE", "TEST_TARGET",
         "TEST_UNDECLARED_OUTPUTS_DIR")


class ExampleTest(unittest.TestCase):

    def test_bazel_test_environment(self):
        for var in _VARS:
            self.assertTrue(os.environ.get(var), "%s is not set" % var)
        self.assertEqual(os.environ["TEST_WORKSPACE"], "_main")
        self.assertTrue(os.environ["TEST_TARGET"].endswith("//tools/gpu_bundle:" +
                                                           os.environ.get("EXAMPLE_NAME", "")))
        tmp = os.environ["TEST_TMPDIR"]
        self.assertTrue(os.path.isdir(tmp))
        with open(os.path.join(tmp, "probe"), "w") as f:
            f.write("writable")
        self.assertTrue(os.path.isdir(os.path.dirname(os.environ["XML_OUTPUT_FILE"])))
        # cwd is the main repository's runfiles directory, as under bazel test.
        self.assertEqual(os.path.realpath(os.getcwd()),
                         os.path.realpath(os.path.join(os.environ["TEST_SRCDIR"], "_main")))
        self.assertTrue(os.path.exists("tools/gpu_bundle/example_test.py"))

    def test_library_import(self):
        self.assertEqual(gpu_bundle_example_greeting.greet("gpu"), "hello, gpu")

    def test_deliberate_failure(self):
        if os.environ.get("EXAMPLE_SHOULD_FAIL") == "1":
            self.fail("EXAMPLE_SHOULD_FAIL=1: failing on purpose")


def _write_xml(result):
    """A minimal JUnit XML of our own, with a marker the self-test looks for."""
    fails = len(result.failures) + len(result.errors)
    with open(os.environ["XML_OUTPUT_FILE"], "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<testsuites><testsuite name="gpu_bundle_example" tests="%d" failures="%d">'
                '<properties><property name="marker" value="written-by-example-test"/>'
                '</properties></testsuite></testsuites>\n' % (result.testsRun, fails))


if __name__ == "__main__":
    print("example_test: TEST_TMPDIR=%s" % os.environ.get("TEST_TMPDIR"))
    print("example_test: XML_OUTPUT_FILE=%s" % os.environ.get("XML_OUTPUT_FILE"))
    outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if outputs:
        with open(os.path.join(outputs, "example_marker.txt"), "w") as f:
            f.write(os.environ.get("TEST_TMPDIR", ""))
    res = unittest.main(exit=False, verbosity=2).result
    if os.environ.get("XML_OUTPUT_FILE"):
        _write_xml(res)
    sys.exit(0 if res.wasSuccessful() else 1)
