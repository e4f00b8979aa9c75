"""Installs the (unstamped) flashcore wheel the way a user would and tests the installed package.

A fresh venv whose only extra path is the project venv's site-packages (a .pth file: a venv made
from a venv with --system-site-packages would see the base interpreter's, not the project venv's),
`pip install --no-deps --no-index` of the wheel into it, then, with the runfiles out of sys.path:
  - the package's metadata, files and RECORD as pip installed them;
  - flashcore.build_info() reports the wheel's build facts (and the kernels from _C.so);
  - tests/cpu_api_test.py, the CI's CPU API suite, against the installed package.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import zipfile

from absl import flags
from absl.testing import absltest

import venv_info

FLAGS = flags.FLAGS
flags.DEFINE_string("wheel", None, "the wheel to install")
flags.DEFINE_string("api_test", None, "tests/cpu_api_test.py")
flags.DEFINE_string("license", None, "the repository's LICENSE")


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(cmd), res.returncode, res.stdout, res.stderr))
    return res.stdout


class InstalledWheelTest(absltest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="flashcore-wheel-")
        cls.venv = os.path.join(cls.tmp, "venv")
        cls.python = os.path.join(cls.venv, "bin", "python3")
        # No PYTHONPATH (Bazel's points into the runfiles, which hold a flashcore too).
        cls.env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        cls.env["PYTHONNOUSERSITE"] = "1"
        project = os.path.realpath(venv_info.VENV_PREFIX)
        run([os.path.join(project, "bin", "python3"), "-m", "venv", "--system-site-packages", cls.venv],
            env=cls.env)
        site = run([cls.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   env=cls.env).strip()
        project_site = run([os.path.join(project, "bin", "python3"), "-c",
                            "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=cls.env).strip()
        with open(os.path.join(site, "flashcore_project_venv.pth"), "w") as f:
            f.write(project_site + "\n")
        wheel = os.path.join(cls.tmp, os.path.basename(FLAGS.wheel))
        with open(FLAGS.wheel, "rb") as src, open(wheel, "wb") as dst:
            dst.write(src.read())
        run([cls.python, "-m", "pip", "install", "--no-deps", "--no-index", "--no-cache-dir",
             "--disable-pip-version-check", "--no-warn-script-location", wheel], env=cls.env)
        cls.site = site
        cls.wheel = wheel

    def py(self, code):
        return run([self.python, "-c", textwrap.dedent(code)], env=self.env, cwd=self.tmp)

    def test_installed_metadata_and_files(self):
        out = json.loads(self.py("""
            import importlib.metadata as md, json
            d = md.distribution("flashcore")
            m = d.metadata
            print(json.dumps({"version": d.version, "requires": d.requires, "summary": m["Summary"],
                              "metadata_version": m["Metadata-Version"], "license": m.get_all("License"),
                              "license_expression": m.get_all("License-Expression"),
                              "license_files": m.get_all("License-File"),
                              "license_text": d.read_text("licenses/LICENSE"),
                              "python": m["Requires-Python"],
                              "files": sorted(str(f) for f in d.files)}))
        """))
        self.assertEqual(out["version"], "0.1.0")
        self.assertEqual(out["requires"], ["torch>=2.11"])
        self.assertIn("FlashAttention", out["summary"])
        # BSD-3-Clause as core metadata 2.4 says it (PEP 639): the SPDX expression, the license
        # file in <dist-info>/licenses/ byte-equal to the repository's, no legacy License header.
        self.assertEqual(out["metadata_version"], "2.4")
        self.assertEqual(out["license_expression"], ["BSD-3-Clause"])
        self.assertIsNone(out["license"])
        self.assertEqual(out["license_files"], ["LICENSE"])
        with open(FLAGS.license, encoding="utf-8") as f:
            self.assertEqual(out["license_text"], f.read())
        self.assertIn("BSD 3-Clause License", out["license_text"])
        self.assertIn("flashcore-0.1.0.dist-info/licenses/LICENSE", out["files"])
        self.assertEqual(out["python"], "==%s.*" % venv_info.PYTHON_VERSION)
        for f in ("flashcore/__init__.py", "flashcore/_attention.py", "flashcore/_arch.py", "flashcore/_inputs.py",
                  "flashcore/reference.py", "flashcore/api.py", "flashcore/_checks.py",
                  "flashcore/integrations/transformers.py",
                  "flashcore/_C.so", "flashcore/_build_info.json"):
            self.assertIn(f, out["files"])
        # pip verified every file against RECORD on install; the wheel holds nothing else.
        with zipfile.ZipFile(self.wheel) as z:
            names = z.namelist()
        self.assertEqual(sorted(n for n in names if not n.startswith("flashcore-0.1.0.dist-info/")),
                         sorted(f for f in out["files"] if f.startswith("flashcore/") and "__pycache__" not in f))

    def test_imports_the_installed_package_and_reports_build_facts(self):
        info = json.loads(self.py("""
            import json, flashcore, torch
            info = flashcore.build_info()
            info["__file__"] = flashcore.__file__
            print(json.dumps(info))
        """))
        self.assertTrue(info["__file__"].startswith(self.site + os.sep), info["__file__"])
        self.assertTrue(info["from_wheel"])
        self.assertEqual(info["revision"], "unstamped")
        self.assertEqual(info["version"], "0.1.0")
        cp = "cp" + venv_info.PYTHON_VERSION.replace(".", "")
        self.assertTrue(info["wheel_tag"].startswith("%s-%s-manylinux_" % (cp, cp)), info["wheel_tag"])
        self.assertEqual(info["bazel"]["version"], "7.7.1")
        repos = {a["repository"] for a in info["toolchain_archives"]}
        self.assertTrue({"cuda", "pybind11"} <= repos, repos)
        self.assertTrue(all(len(a["sha256"]) == 64 for a in info["toolchain_archives"]))
        self.assertTrue(info["host_compiler_version"])
        kernel_libs = [l for l in info["compile_flags"] if l.startswith(("//kernels:fwd_", "//kernels:bwd_"))
                       and info["compile_flags"][l]["tool"] == "nvcc"]
        # fwd and bwd: (fp16, bf16) x (sm80, sm89, sm90a, and the portable PTX sm80_ptx)
        self.assertEqual(len(kernel_libs), 8 + 8, kernel_libs)
        for lib in kernel_libs:
            arch = lib.split(":", 1)[1].split("_", 2)[2]  # sm80, sm90a, sm80_ptx, ...
            gencode = ("arch=compute_{0},code=compute_{0}" if arch.endswith("_ptx") else "arch=compute_{0},code=sm_{0}")
            gencode = gencode.format(arch.removesuffix("_ptx").replace("sm", ""))
            self.assertTrue(any(gencode in f for f in info["compile_flags"][lib]["flags"]), (lib, gencode))
        # Forward: 48 SASS + 16 portable PTX at head dims 64, 96, 128, 256, + the sm90a forward's 192 (4).
        self.assertEqual(len(info["kernels"]), 68)
        # Backward: head dims 64, 128 and 256 in every library: 36 SASS + 12 portable PTX, + sm90a's 96
        # and 192 (8).
        self.assertEqual(len(info["bwd_kernels"]), 56)

    def test_cpu_api_suite_against_the_installed_package(self):
        env = dict(self.env, FLASHCORE_INSTALLED_WHEEL_VENV=self.venv,
                   # only venv_info (the project venv's identity) from the runfiles
                   PYTHONPATH=os.path.dirname(os.path.realpath(venv_info.__file__)))
        api_test = os.path.join(self.tmp, "cpu_api_test.py")
        with open(FLAGS.api_test) as src, open(api_test, "w") as dst:
            dst.write(src.read())
        res = subprocess.run([self.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", api_test],
                             capture_output=True, text=True, env=env, cwd=self.tmp)
        print(res.stdout[-3000:], res.stderr[-3000:])
        self.assertEqual(res.returncode, 0)
        self.assertRegex(res.stdout, r"\d+ passed")
        self.assertNotRegex(res.stdout, r"\d+ (failed|skipped|error)")


if __name__ == "__main__":
    absltest.main()
