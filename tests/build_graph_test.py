"""Build-graph checks on the real action command lines (//tools/cuda:audit.bzl):

* no BF16-suppressing define reaches any bf16 compile action (directly, via deps, or -Xcompiler);
* every kernel compile targets exactly its own library's arch, and compiles only its own dtype;
* the CUDA toolchain is the hermetic one under external/, never a host CUDA;
* the BF16 guard really fires (probes), and the extension links neither libtorch nor a shared cudart.
"""

import json
import re
import subprocess

from absl import flags
from absl.testing import absltest

FLAGS = flags.FLAGS
flags.DEFINE_string("audit", None, "JSON from action_audit")
flags.DEFINE_string("extension", None, "the built _C.so")
flags.DEFINE_multi_string("probe", [], "bf16 guard probe outputs (must have failed)")
flags.DEFINE_string("probe_control", None, "bf16 probe without macros (must have passed)")
flags.DEFINE_string("host_cuda_probe", None, "what a sandboxed build action sees of /usr/local/cuda")

DTYPES = ("fp16", "bf16")
PASSES = ("fwd", "bwd", "decode")
ARCH_GENCODE = {
    "sm80": "-gencode=arch=compute_80,code=sm_80",
    "sm89": "-gencode=arch=compute_89,code=sm_89",
    "sm90a": "-gencode=arch=compute_90a,code=sm_90a",
    # the portable library (kernels/defs.bzl PTX_ARCHS): compute_80 PTX only, no SASS
    "sm80_ptx": "-gencode=arch=compute_80,code=compute_80",
}
BF16_SUPPRESSING = re.compile(r"(__)?CUDA_NO_BFLOAT16")
ARCH_FLAG = re.compile(r"^(-gencode|--generate-code|-arch|--gpu-architecture|-code|--gpu-code)\b")


def tag_value(record, key):
    values = [t.split("=", 1)[1] for t in record["tags"] if t.startswith(key + "=")]
    return values[0] if values else None


class BuildGraphTest(absltest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(FLAGS.audit) as f:
            cls.records = json.load(f)
        cls.cuda = [r for r in cls.records if r["mnemonic"] == "CudaCompile"]

    def kernel_compiles(self):
        out = [r for r in self.cuda if tag_value(r, "flashcore-dtype")]
        self.assertNotEmpty(out, "no kernel compile actions found: the audit is not seeing the kernels")
        return out

    def test_eight_fwd_eight_bwd_and_eight_decode_kernel_libraries_each_with_its_instantiations(self):
        libs = {}
        for r in self.kernel_compiles():
            key = (tag_value(r, "flashcore-pass"), tag_value(r, "flashcore-dtype"), tag_value(r, "flashcore-arch"))
            libs.setdefault(key, []).append(r)
        self.assertEqual(set(libs), {(p, d, a) for p in PASSES for d in DTYPES for a in ARCH_GENCODE})
        for key, compiles in libs.items():
            # forward: head_dim {64,96,128,256} x {non-causal, causal}, plus the sm90a forward's 192;
            # every backward: 64, 128, 256, plus sm90a's 96 and 192 (kernels/BUILD.bazel); decode: 64, 128,
            # 256 (causal is a run-time argument)
            want = {"decode": 3, "fwd": 10 if key[2] == "sm90a" else 8, "bwd": 10 if key[2] == "sm90a" else 6}[key[0]]
            self.assertLen(compiles, want, key)
            self.assertLen({r["label"] for r in compiles}, 1, key)  # one library per (pass, dtype, arch)
            self.assertTrue(compiles[0]["label"].endswith(":%s_%s_%s" % key), compiles[0]["label"])

    def test_no_bf16_suppressing_define_reaches_a_bf16_compile(self):
        for r in self.kernel_compiles():
            if tag_value(r, "flashcore-dtype") != "bf16":
                continue
            leaks = [a for a in r["argv"] if BF16_SUPPRESSING.search(a)]
            self.assertEmpty(leaks, "%s compiles a bf16 TU with %s" % (r["label"], leaks))

    def test_fp16_libraries_do_carry_the_suppressing_defines(self):
        # Guards the previous test against vacuity: the audit does see these flags when present.
        for r in self.kernel_compiles():
            if tag_value(r, "flashcore-dtype") == "fp16":
                self.assertIn("-DCUDA_NO_BFLOAT16", r["argv"], r["label"])

    def test_each_kernel_compile_targets_only_its_own_arch(self):
        for r in self.kernel_compiles():
            arch = tag_value(r, "flashcore-arch")
            arch_flags = [a for a in r["argv"] if ARCH_FLAG.match(a)]
            self.assertEqual(arch_flags, [ARCH_GENCODE[arch]], r["label"])

    def test_each_kernel_compile_builds_only_its_own_dtype_and_arch(self):
        for r in self.kernel_compiles():
            dtype, arch = tag_value(r, "flashcore-dtype"), tag_value(r, "flashcore-arch")
            pass_ = tag_value(r, "flashcore-pass")
            srcs = [a for a in r["argv"] if a.endswith(".cu")]
            self.assertLen(srcs, 1, r["label"])
            variant = "" if pass_ == "decode" else "_(full|causal)"
            self.assertRegex(srcs[0].rsplit("/", 1)[-1], r"^%s_%s_%s_d\d+%s\.cu$" % (pass_, dtype, arch, variant))

    def test_nvcc_is_the_hermetic_toolkit(self):
        self.assertNotEmpty(self.cuda)
        for r in self.cuda:
            nvcc = [a for a in r["argv"] if a.endswith("/bin/nvcc")]
            self.assertLen(nvcc, 1, r["argv"][:8])
            self.assertTrue(nvcc[0].startswith("external/") and "/nvidia/cu13/bin/nvcc" in nvcc[0], nvcc[0])
            includes = [a[2:] for a in r["argv"] if a.startswith("-I")] + \
                       [a.split("=", 1)[1] for a in r["argv"] if a.startswith("-isystem=")]
            for inc in includes:
                self.assertFalse(inc.startswith("/"), "absolute include dir %s in %s" % (inc, r["label"]))

    def test_no_action_mentions_a_host_cuda(self):
        self.assertNotEmpty([r for r in self.records if r["mnemonic"] in ("CppCompile", "CppLink")])
        for r in self.records:
            for a in r["argv"]:
                self.assertNotIn("/usr/local/cuda", a, "%s %s" % (r["mnemonic"], r["label"]))
                self.assertNotRegex(a, r"^/(usr|opt)/.*cuda", "%s %s" % (r["mnemonic"], r["label"]))

    def test_build_actions_cannot_see_the_host_cuda(self):
        with open(FLAGS.host_cuda_probe) as f:
            self.assertEqual(f.read().strip(), "hidden",
                             "/usr/local/cuda is visible to build actions: --sandbox_block_path is not in effect")

    def test_bf16_guard_fires_for_every_suppressing_macro(self):
        self.assertLen(FLAGS.probe, 5)
        for path in FLAGS.probe:
            with open(path) as f:
                text = f.read()
            self.assertNotIn("rc=0", text.splitlines()[0], path)
            self.assertIn("a BF16-suppressing macro (CUDA_NO_BFLOAT16 family) reached a BF16", text, path)

    def test_bf16_guard_probe_control_compiles(self):
        with open(FLAGS.probe_control) as f:
            text = f.read()
        self.assertEqual(text.splitlines()[0], "rc=0", text[:2000])

    def test_extension_needs_no_libtorch_and_no_shared_cudart(self):
        dyn = subprocess.run(["readelf", "-d", FLAGS.extension], capture_output=True, text=True, check=True).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dyn)
        self.assertNotEmpty(needed)
        for lib in needed:
            self.assertNotRegex(lib, r"torch|c10|cudart|libcuda\.|python", needed)
        syms = subprocess.run(["readelf", "-Ws", "--dyn-syms", FLAGS.extension], capture_output=True,
                              text=True, check=True).stdout
        self.assertIn("PyInit__C", syms)


if __name__ == "__main__":
    absltest.main()
