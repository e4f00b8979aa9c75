"""action_runner.py (the GPU side of the relay) runs exported actions as buildbox-run-hosttools
would: argv, environment, working directory, output files and directories, exit code,
stdout/stderr, timeout. Each case builds an export tarball like relay_run.py writes and checks
the result tarball."""

import io
import json
import os
import sys
import tarfile
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import action_runner  # noqa: E402


def make_export(d, name, arguments, files, env=(), workdir="", outputs=(), timeout=None):
    """files: {path: (content, executable)} in the input root."""
    m = {"format": 1, "action_sha256": name, "kind": "test", "arguments": arguments,
         "environment": [list(kv) for kv in env], "working_directory": workdir,
         "output_paths": list(outputs), "output_files": [], "output_directories": [],
         "timeout_s": timeout, "platform": [["gpu", "test"]]}
    path = os.path.join(d, name + ".action.tar.gz")
    with tarfile.open(path, "w:gz") as tf:
        def add(arc, data, mode):
            ti = tarfile.TarInfo(arc)
            ti.size = len(data)
            ti.mode = mode
            tf.addfile(ti, io.BytesIO(data))
        add("manifest.json", json.dumps(m).encode(), 0o644)
        for p, (content, exe) in files.items():
            add("input/" + p, content.encode(), 0o755 if exe else 0o644)
    return path


def read_result(out_dir, name):
    res = {}
    with tarfile.open(os.path.join(out_dir, name + ".result.tar.gz")) as tf:
        for m in tf.getmembers():
            if m.isfile():
                res[m.name] = (tf.extractfile(m).read(), m.mode)
    res["json"] = json.loads(res["result.json"][0])
    return res


SCRIPT = """#!/bin/sh
echo "argv: $0 $*"
echo "cwd: $(pwd -P | sed 's#.*/input#input#')"
echo "FOO=$FOO"
echo "to stderr" >&2
mkdir -p out/dir/sub
echo payload > out/dir/sub/file.txt
printf '#!/bin/sh\\n' > out/tool.sh; chmod +x out/tool.sh
echo "data: $(cat ../data.txt)"
exit 3
"""


class ActionRunnerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")
        self.logs = []

    def run_one(self, path):
        return action_runner.run_action(path, self.out, log=self.logs.append)

    def test_command_semantics_and_outputs(self):
        p = make_export(self.tmp, "a" * 64, ["./run.sh", "x", "y z"],
                        {"pkg/run.sh": (SCRIPT, True), "data.txt": ("from the input root", False)},
                        env=[("FOO", "bar baz"), ("PATH", "/usr/bin:/bin")], workdir="pkg",
                        outputs=["out/dir", "out/tool.sh", "out/missing.txt"])
        r = self.run_one(p)
        self.assertEqual(r["exit_code"], 3)
        self.assertFalse(r["timed_out"])
        res = read_result(self.out, "a" * 64)
        stdout = res["stdout"][0].decode()
        self.assertIn("argv: ./run.sh x y z", stdout)
        self.assertIn("cwd: input/pkg", stdout)
        self.assertIn("FOO=bar baz", stdout)
        self.assertIn("data: from the input root", stdout)
        self.assertEqual(res["stderr"][0].decode(), "to stderr\n")
        self.assertEqual(res["outputs/out/dir/sub/file.txt"][0], b"payload\n")
        self.assertTrue(res["outputs/out/tool.sh"][1] & 0o100)
        outs = res["json"]["outputs"]
        self.assertEqual(outs["directories"], ["out/dir"])
        self.assertEqual(outs["files"], [{"path": "out/tool.sh", "executable": True}])
        self.assertNotIn("outputs/out/missing.txt", res)

    def test_output_parent_dirs_exist_before_run(self):
        p = make_export(self.tmp, "b" * 64, ["/bin/sh", "-c", "echo hi > deep/er/x.txt"], {},
                        outputs=["deep/er/x.txt"])
        r = self.run_one(p)
        self.assertEqual(r["exit_code"], 0, read_result(self.out, "b" * 64)["stderr"])
        self.assertEqual(read_result(self.out, "b" * 64)["outputs/deep/er/x.txt"][0], b"hi\n")

    def test_argv0_from_the_commands_path(self):
        p = make_export(self.tmp, "c" * 64, ["mytool"], {"bin/mytool": ("#!/bin/sh\necho found\n", True)},
                        env=[("PATH", "bin:/usr/bin:/bin")])
        # a relative PATH entry is relative to the working directory (the input root here)
        cwd = os.getcwd()
        try:
            r = self.run_one(p)
        finally:
            os.chdir(cwd)
        res = read_result(self.out, "c" * 64)
        self.assertEqual(r["exit_code"], 0, res["stderr"])
        self.assertEqual(res["stdout"][0], b"found\n")

    def test_timeout_kills_the_process_group(self):
        p = make_export(self.tmp, "d" * 64, ["/bin/sh", "-c", "sleep 30 & sleep 30"], {}, timeout=1)
        t0 = time.time()
        r = self.run_one(p)
        self.assertLess(time.time() - t0, 10)
        self.assertTrue(r["timed_out"])
        self.assertEqual(r["exit_code"], 128 + 9)
        self.assertIn(b"timeout", read_result(self.out, "d" * 64)["stderr"][0])

    def test_signal_exit_code(self):
        p = make_export(self.tmp, "e" * 64, ["/bin/sh", "-c", "kill -TERM $$"], {})
        self.assertEqual(self.run_one(p)["exit_code"], 128 + 15)

    def test_missing_executable_is_127(self):
        p = make_export(self.tmp, "f" * 64, ["./nope"], {})
        r = self.run_one(p)
        self.assertEqual(r["exit_code"], 127)
        self.assertIn(b"cannot execute", read_result(self.out, "f" * 64)["stderr"][0])

    def test_bad_inputs_are_refused(self):
        bad = os.path.join(self.tmp, "x.tar.gz")
        open(bad, "wb").close()
        with self.assertRaises(ValueError):
            self.run_one(bad)
        evil = os.path.join(self.tmp, "g" * 64 + ".action.tar.gz")
        with tarfile.open(evil, "w:gz") as tf:
            ti = tarfile.TarInfo("../escape")
            tf.addfile(ti, io.BytesIO(b""))
        with self.assertRaises(ValueError):
            self.run_one(evil)

    def test_main_runs_a_directory_and_reports(self):
        make_export(self.tmp, "h" * 64, ["/bin/true"], {})
        make_export(self.tmp, "i" * 64, ["/bin/false"], {})
        rc = action_runner.main(["--out", self.out, self.tmp])
        self.assertEqual(rc, 0)  # both ran; their own exit codes travel in the results
        self.assertEqual(sorted(os.listdir(self.out)), ["h" * 64 + ".result.tar.gz", "i" * 64 + ".result.tar.gz"])
        self.assertEqual(read_result(self.out, "i" * 64)["json"]["exit_code"], 1)


if __name__ == "__main__":
    unittest.main()
