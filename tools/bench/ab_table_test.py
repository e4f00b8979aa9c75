"""CPU checks of the device-call skeleton: ab_table.py's best-per-row table, and
device_call.sh's unpacking and alternating A/B rounds driven by a stand-in benchmark (no GPU)."""
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap

from absl.testing import absltest

import ab_table

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))  # tools/bench/.. /..: the root device_call.sh expects


class AbTableTest(absltest.TestCase):

    def test_best_reading_per_row_and_build(self):
        lines = [
            "head_r1 fwd bf16 d128 S1024 causal 0.2000 ms 400.0 TFLOP/s",
            "head_r2 fwd bf16 d128 S1024 causal 0.1900 ms 410.0 TFLOP/s",
            "new_r1 fwd bf16 d128 S1024 causal 0.1800 ms 430.5 TFLOP/s",
            "new_r2 fwd bf16 d128 S1024 causal 0.1850 ms 420.0 TFLOP/s",
            "new bf16 d128 causal packed mixed64   1.0 ms 300.0 TFLOP/s",
            "head bf16 d128 causal packed mixed64   1.1 ms 330.0 TFLOP/s",
            "Traceback (most recent call last): ms TFLOP/s",
            "== gpu_h200 rc=0 1585 passed",
            "",
        ]
        best = ab_table.best_by_row(lines)
        self.assertEqual(list(best), ["fwd bf16 d128 S1024 causal", "bf16 d128 causal packed mixed64"])
        self.assertEqual(best["fwd bf16 d128 S1024 causal"], {"head": 410.0, "new": 430.5})
        self.assertEqual(best["bf16 d128 causal packed mixed64"], {"new": 300.0, "head": 330.0})
        out = ab_table.table(best, "head", ["new", "missing"])
        self.assertLen(out, 2)
        self.assertIn("head   410.0", out[0])
        self.assertTrue(out[0].endswith("new   430.5 1.050"), out[0])
        self.assertTrue(out[1].endswith("new   300.0 0.909"), out[1])
        self.assertEqual(ab_table.table(best, "absent", ["new"]), [])


class DeviceCallTest(absltest.TestCase):

    def _carry(self, root, builds):
        carry = os.path.join(root, "carry")
        os.makedirs(carry)
        for name, tflops in builds.items():
            tree = os.path.join(root, "src_" + name, "py")
            os.makedirs(tree)
            with open(os.path.join(tree, "build_speed.txt"), "w") as f:
                f.write(str(tflops))
            with tarfile.open(os.path.join(carry, name + ".tar.xz"), "w:xz") as t:
                t.add(tree, arcname="py")
        return carry

    def _run(self, script, env):
        proc = subprocess.run(["bash", "-c", script], cwd=REPO, env=env, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return proc.stdout

    def test_rounds_alternate_builds_and_tabulate(self):
        with tempfile.TemporaryDirectory() as root:
            carry = self._carry(root, {"head": 400.0, "new": 420.0})
            stub = os.path.join(root, "bench_stub.py")
            with open(stub, "w") as f:
                # Stands in for ab_kernels.py: its build's speed from the unpacked tree on PYTHONPATH.
                f.write(textwrap.dedent("""\
                    import os, sys
                    label = sys.argv[sys.argv.index("--label") + 1]
                    tree = os.environ["PYTHONPATH"].split(os.pathsep)[0]
                    speed = float(open(os.path.join(tree, "build_speed.txt")).read())
                    with open(os.path.join(os.environ["OUT"], "order.txt"), "a") as f:
                        f.write(label + " " + " ".join(sys.argv[3:]) + "\\n")
                    print(label, "fwd bf16 d128 S1024 causal 0.1 ms", speed, "TFLOP/s")
                    """))
            out = os.path.join(root, "out")
            os.makedirs(out)
            env = dict(os.environ, OUT=out, CARRY=carry, DC_AB_CMD="%s %s" % (sys.executable, stub))
            stdout = self._run(". tools/bench/device_call.sh && DC_AB=%s/ab && dc_unpack head new && "
                               "dc_ab 2 head new -- --dtype bf16 --dims 128 && dc_table head new" % root, env)
            with open(os.path.join(out, "order.txt")) as f:
                order = f.read().split("\n")
            self.assertEqual(order[:4], ["head_r1 --dtype bf16 --dims 128", "new_r1 --dtype bf16 --dims 128",
                                         "head_r2 --dtype bf16 --dims 128", "new_r2 --dtype bf16 --dims 128"])
            self.assertIn("head   400.0  new   420.0 1.050", stdout)

    def test_runs_past_the_deadline_are_skipped_and_said(self):
        with tempfile.TemporaryDirectory() as root:
            carry = self._carry(root, {"head": 1.0})
            out = os.path.join(root, "out")
            os.makedirs(out)
            env = dict(os.environ, OUT=out, CARRY=carry, DC_DEADLINE="-1", DC_AB_CMD="false")
            stdout = self._run(". tools/bench/device_call.sh && dc_ab 1 head -- --dims 64", env)
            self.assertIn("deadline: skipped head_r1 --dims 64", stdout)
            self.assertFalse(os.path.exists(os.path.join(out, "ab.txt")))


if __name__ == "__main__":
    absltest.main()
