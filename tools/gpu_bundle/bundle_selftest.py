"""Self-test of gpu_bundle (no GPU needed): unpacks the example bundles built by Bazel, runs
their bundle/run.py with this interpreter the way the GPU machine would, and checks the results.

argv: example_bundle.tar.gz example_mixed_bundle.tar.gz example_binary_bundle.tar.gz packer.py
"""

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

BUNDLE, MIXED, BINARY, PACKER = [os.path.abspath(p) for p in sys.argv[1:5]]
del sys.argv[1:5]


def _extract(tgz, dest):
    with tarfile.open(tgz) as tar:
        members = tar.getmembers()
        for m in members:
            assert m.isfile() or m.isdir(), "%s is not a plain file or directory" % m.name
            assert m.name == "bundle" or m.name.startswith("bundle/"), m.name
        if hasattr(tarfile, "data_filter"):  # Python >= 3.12 (and patched 3.8+)
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)
    return [m.name for m in members]


def _run(workdir, *args):
    p = subprocess.run([sys.executable, os.path.join(workdir, "bundle", "run.py")] + list(args),
                       cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=120)
    return p.returncode, p.stdout


def _last_line(out):
    return [line for line in out.splitlines() if line.strip()][-1]


class BundleSelfTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def test_layout_and_manifest(self):
        names = _extract(BUNDLE, self.tmp)
        for want in ("bundle/run.py", "bundle/manifest.json",
                     "bundle/runfiles/_main/tools/gpu_bundle/example_test.py",
                     "bundle/runfiles/_main/tools/gpu_bundle/example_lib/"
                     "gpu_bundle_example_greeting.py"):
            self.assertIn(want, names)
        with open(os.path.join(self.tmp, "bundle", "manifest.json")) as f:
            m = json.load(f)
        self.assertEqual(m["workspace"], "_main")
        (t,) = m["targets"]
        self.assertTrue(t["label"].endswith("//tools/gpu_bundle:example_test"), t["label"])
        self.assertEqual(t["kind"], "test")
        self.assertEqual(t["main"], "_main/tools/gpu_bundle/example_test.py")
        self.assertIn("_main/tools/gpu_bundle/example_lib", t["imports"])
        self.assertEqual(t["env"].get("EXAMPLE_NAME"), "example_test")  # RunEnvironmentInfo
        self.assertIn("_main/tools/gpu_bundle/example_test.py", m["files"])
        rc, out = _run(self.tmp, "--list")
        self.assertEqual(rc, 0, out)
        self.assertIn("//tools/gpu_bundle:example_test", out)

    def test_passing_bundle(self):
        _extract(BUNDLE, self.tmp)
        rc, out = _run(self.tmp, "--verify", "--out", "results")
        self.assertEqual(rc, 0, out)
        self.assertEqual(_last_line(out), "1 passed, 0 failed", out)
        self.assertIn("PASSED", out)
        res = os.path.join(self.tmp, "results", "tools", "gpu_bundle", "example_test")
        # The test wrote its own XML to XML_OUTPUT_FILE; the runner kept it.
        with open(os.path.join(res, "test.xml")) as f:
            self.assertIn("written-by-example-test", f.read())
        with open(os.path.join(res, "test.log")) as f:
            log = f.read()
        self.assertIn("Ran 3 tests", log)
        self.assertIn("XML_OUTPUT_FILE=%s" % os.path.join(res, "test.xml"), log)
        # TEST_TMPDIR was set, fresh, and removed after the run.
        with open(os.path.join(res, "test.outputs", "example_marker.txt")) as f:
            test_tmpdir = f.read()
        self.assertTrue(test_tmpdir, "TEST_TMPDIR was empty")
        self.assertIn("TEST_TMPDIR=%s" % test_tmpdir, log)
        self.assertFalse(os.path.exists(test_tmpdir))
        with open(os.path.join(self.tmp, "results", "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual((summary["passed"], summary["failed"]), (1, 0))
        self.assertEqual(summary["results"][0]["exit_code"], 0)

    def test_failing_target_is_reported(self):
        _extract(MIXED, self.tmp)
        rc, out = _run(self.tmp, "--out", "results")
        self.assertNotEqual(rc, 0, out)
        self.assertEqual(_last_line(out), "1 passed, 1 failed", out)
        self.assertIn("EXAMPLE_SHOULD_FAIL=1: failing on purpose", out)  # streamed log
        fail_lines = [l for l in out.splitlines() if "example_fail_test " in l]
        self.assertTrue(any("FAILED" in l for l in fail_lines), out)
        res = os.path.join(self.tmp, "results", "tools", "gpu_bundle")
        self.assertTrue(os.path.exists(os.path.join(res, "example_fail_test", "test.xml")))
        with open(os.path.join(res, "example_fail_test", "test.log")) as f:
            self.assertIn("FAILED (failures=1)", f.read())

        rc, out = _run(self.tmp, "--only", "//tools/gpu_bundle:example_test", "--out", "r2")
        self.assertEqual(rc, 0, out)
        self.assertEqual(_last_line(out), "1 passed, 0 failed", out)
        rc, out = _run(self.tmp, "--only", "example_fail_test", "--out", "r3")
        self.assertEqual(rc, 1, out)
        self.assertEqual(_last_line(out), "0 passed, 1 failed", out)
        rc, out = _run(self.tmp, "--only", "//nope:nope")
        self.assertNotEqual(rc, 0, out)

    def test_timeout_orphans_and_default_xml(self):
        # Synthetic targets added to an unpacked bundle: one that hangs (killed by --timeout),
        # one that exits leaving a child holding its stdout (must not hang the runner).
        _extract(BUNDLE, self.tmp)
        main_dir = os.path.join(self.tmp, "bundle", "runfiles", "_main")
        with open(os.path.join(main_dir, "hang.py"), "w") as f:
            f.write("import time\nprint('hanging', flush=True)\ntime.sleep(60)\n")
        with open(os.path.join(main_dir, "orphan.py"), "w") as f:
            f.write("import subprocess\nsubprocess.Popen(['sleep', '60'])\nprint('bye')\n")
        mpath = os.path.join(self.tmp, "bundle", "manifest.json")
        with open(mpath) as f:
            m = json.load(f)
        for name in ("hang", "orphan"):
            m["targets"].append({"label": "//synthetic:" + name, "package": "synthetic",
                                 "name": name, "repo": "", "kind": "test",
                                 "main": "_main/%s.py" % name, "imports": [], "env": {},
                                 "inherited_env": [], "executable": "_main/%s.py" % name})
        with open(mpath, "w") as f:
            json.dump(m, f)
        t0 = time.monotonic()
        rc, out = _run(self.tmp, "--only", "hang", "--only", "orphan", "--timeout", "2",
                       "--out", "results")
        self.assertLess(time.monotonic() - t0, 30, out)
        self.assertEqual(rc, 1, out)
        self.assertEqual(_last_line(out), "1 passed, 1 failed", out)
        self.assertTrue(any("//synthetic:hang" in l and "TIMEOUT" in l
                            for l in out.splitlines()), out)
        # Neither wrote XML_OUTPUT_FILE: the runner generated one, as Bazel does.
        with open(os.path.join(self.tmp, "results", "synthetic", "hang", "test.xml")) as f:
            xml = f.read()
        self.assertIn("<failure", xml)
        self.assertIn("hanging", xml)
        with open(os.path.join(self.tmp, "results", "synthetic", "orphan", "test.xml")) as f:
            self.assertNotIn("<failure", f.read())

    def test_binary_bundle(self):
        _extract(BINARY, self.tmp)
        rc, out = _run(self.tmp, "--", "a b", "--flag")
        self.assertEqual(rc, 0, out)
        self.assertIn("hello, binary", out)
        self.assertIn("args=['a b', '--flag']", out)
        self.assertIn("cwd_is_runfiles_main=True", out)
        self.assertIn("BUILD_WORKING_DIRECTORY=%s" % self.tmp, out)
        rc, out = _run(self.tmp, "--", "--exit", "3")
        self.assertEqual(rc, 3, out)

    def test_packer_size_limit_and_determinism(self):
        big = os.path.join(self.tmp, "big.bin")
        with open(big, "wb") as f:
            f.write(os.urandom(1500 * 1000))  # incompressible
        manifest = os.path.join(self.tmp, "m.json")
        with open(manifest, "w") as f:
            json.dump({"version": 1, "bundle": "//x:big", "workspace": "_main", "targets": [],
                       "entries": {"_main/x/big.bin": {"path": big, "dir": False, "from": "//x"},
                                   "_main/x/__init__.py": {"path": None, "dir": False,
                                                           "from": "//x"}}}, f)
        outs = []
        for i in range(2):
            out = os.path.join(self.tmp, "ok%d.tar.gz" % i)
            p = subprocess.run([sys.executable, PACKER, "--manifest", manifest, "--runner",
                                PACKER, "--output", out, "--max_mb", "30"])
            self.assertEqual(p.returncode, 0)
            with open(out, "rb") as f:
                outs.append(f.read())
        self.assertEqual(outs[0], outs[1], "the tarball is not deterministic")
        out = os.path.join(self.tmp, "big.tar.gz")
        p = subprocess.run([sys.executable, PACKER, "--manifest", manifest, "--runner", PACKER,
                            "--output", out, "--max_mb", "1"], stderr=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("over the 1 MB limit", p.stderr)
        self.assertIn("_main/x/big.bin", p.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
