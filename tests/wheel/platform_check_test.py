"""The wheel's platform-tag check can fail: //tools/wheel:provenance (what building //:wheel
runs) accepts the wheel under its own name and rejects the same bytes named with a manylinux tag
older than the glibc symbol versions _C.so needs."""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from absl import flags
from absl.testing import absltest

FLAGS = flags.FLAGS
flags.DEFINE_string("wheel", None, "a built flashcore wheel")
flags.DEFINE_string("provenance_tool", None, "//tools/wheel:provenance")


class PlatformCheckTest(absltest.TestCase):

    def run_tool(self, wheel_name):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        wheel = os.path.join(tmp, wheel_name)
        shutil.copyfile(FLAGS.wheel, wheel)
        out = os.path.join(tmp, "provenance.json")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        res = subprocess.run([FLAGS.provenance_tool, "--wheel", wheel, "--target", "//test", "--out", out],
                             capture_output=True, text=True, env=env)
        return res, out

    def test_accepts_the_true_tag(self):
        name = os.path.basename(FLAGS.wheel)
        res, out = self.run_tool(name)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(out) as f:
            doc = json.load(f)
        with open(FLAGS.wheel, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual(doc["subject"], [{"name": name, "digest": {"sha256": sha}}])
        check = doc["predicate"]["buildDefinition"]["internalParameters"]["platform_check"]
        self.assertEqual(check["declared"], check["derived"])
        self.assertIn("libc.so.6", check["versioned_symbols"])

    def test_rejects_a_tag_older_than_the_symbols_need(self):
        base, tag = os.path.basename(FLAGS.wheel)[:-len(".whl")].rsplit("-", 1)
        self.assertNotEqual(tag, "manylinux_2_17_x86_64")
        res, out = self.run_tool(base + "-manylinux_2_17_x86_64.whl")
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("auditwheel derives %s" % tag, res.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    absltest.main()
