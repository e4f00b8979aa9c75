"""SASS of the built kernels (cuobjdump -sass, pinned 13.2 wheels; no GPU needed):

* the extension holds SASS for exactly sm_80, sm_89 and sm_90a, and PTX only for compute_80 (the
  portable libraries, one PTX file per forward and backward instantiation); every sm_80/sm_89 forward and backward main kernel
  runs on HMMA (mma.sync) and no sm_80/sm_89 code has HGMMA (wgmma) or UTMALDG (TMA loads);
* in the sm90a libraries, every kernel whose symbol marks it as the Hopper kernel ("hopper" or
  "sm90" in its name, e.g. namespace flashcore::hopper) contains HGMMA and UTMALDG;
* with --expect_hopper=1 (set in tests/BUILD.bazel since the Hopper kernel landed) each
  (dtype, head_dim, causal) TU of the sm90a libraries must hold at least one such kernel;
* the sm90a backward libraries (--sm90a_bwd_lib) hold, per (dtype, head_dim, causal) TU, the
  wgmma/TMA backward (flashcore::hopper::bwd_kernel / bwd_wide_kernel, HGMMA and UTMALDG: the
  default and the deterministic path, each without and with the sink's gradient, and the default
  path's packed-softcap variant) and the mma.sync backward (HMMA, no HGMMA: layouts the TMA cannot
  describe; not at 96).

* the sm90a forward kernels' stack frames (ptxas' spill space; cuobjdump -res-usage of the
  extension) stay within the per-kernel budgets of SM90A_FWD_STACK_BUDGETS.

The sm90a libraries are read member by member (one generated TU per object, named
fwd_<dtype>_sm90a_d<head_dim>_<full|causal>), which is what ties a kernel to its key.
"""

import collections
import os
import re
import subprocess

from absl import flags
from absl.testing import absltest

FLAGS = flags.FLAGS
flags.DEFINE_string("cuobjdump", None, "the pinned cuobjdump binary")
flags.DEFINE_string("nvdisasm", None, "the pinned nvdisasm binary (cuobjdump -sass runs it)")
flags.DEFINE_string("extension", None, "the built _C.so")
flags.DEFINE_multi_string("sm90a_lib", [], "archives of the sm90a kernel libraries")
flags.DEFINE_multi_string("ptx_lib", [], "archives of the portable PTX kernel libraries (fwd and bwd)")
flags.DEFINE_multi_string("sm90a_bwd_lib", [], "archives of the sm90a backward kernel libraries")
flags.DEFINE_integer("expect_hopper", 0, "1: every sm90a (dtype, head_dim, causal) must have a Hopper kernel")

DTYPES = ("fp16", "bf16")
# Every library's forward: 64, 96, 128 and 256, and its backward: 64, 128 and 256
# (kernels/BUILD.bazel FWD_HEAD_DIMS, BWD_HEAD_DIMS); sm90a also has 192 in both passes and 96 in
# the backward. Every sm90a backward head dim has the wgmma kernel (bwd_kernel up to 128,
# bwd_wide_kernel above).
FWD_HEAD_DIMS = (64, 96, 128, 256)
SM90A_FWD_HEAD_DIMS = (64, 96, 128, 192, 256)
BWD_HEAD_DIMS = (64, 128, 256)
DECODE_HEAD_DIMS = (64, 128, 256)  # every library, the portable PTX one included
SM90A_BWD_HEAD_DIMS = (64, 96, 128, 192, 256)
# The mma.sync kernel (tiles of 64-column blocks) has no 96: 96's fallback is the 128 launcher's.
SM90A_BWD_MMA_SYNC_HEAD_DIMS = (64, 128, 192, 256)
HOPPER_BWD_KERNEL = re.compile(r"hopper::bwd_(wide_)?kernel|hopper[0-9]+bwd_(wide_)?kernel")
# The wgmma backward's template flags after <Traits, kHeadDim, kCausal, ...> in its mangled name:
# kDeterministic, kSinkGrad, kPackedSoftcap (kernels/hopper/bwd_launch.cuh bwd_kernel_for).
HOPPER_BWD_FLAGS = re.compile(r"ELi\d+ELb[01]ELb(?P<det>[01])ELb(?P<sink>[01])ELb(?P<softcap>[01])EEEv")
# (deterministic, sink gradient, packed softcap) of the wgmma kernels each sm90a backward TU holds.
HOPPER_BWD_VARIANTS = sorted([(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 0, 1)])
HOPPER_SYMBOL = re.compile(r"hopper|sm90", re.IGNORECASE)
# The sm90a forward's template arguments in its mangled name (kernels/hopper/fwd_kernel.cuh:
# <Traits, kHeadDim, kCausal, FwdTileKind, kPackGqa>).
HOPPER_FWD_ARGS = re.compile(r"hopper10fwd_kernelINS_10(?P<dtype>Fp16|Bf16)TraitsELi(?P<head_dim>\d+)ELb(?P<causal>[01])"
                             r"ELNS0_11FwdTileKindE(?P<tile>\d)ELb(?P<pack>[01])E")
# Stack frame bytes (ptxas' spill space) of the sm90a forward kernels, as built at fb1b828; every
# kernel not listed has none. Key: (dtype, head_dim, causal, FwdTileKind: 0 default, 1 long rows,
# 2 few tiles, 3 short rows, pack-GQA). A change that grows one of them changed the register
# allocation of a kernel, maybe of its key-block loop: session 54's correctness fix gave the bf16
# d64 long-rows kernel a 40-byte frame and two local loads per key block in its plain path, which
# cost plain d64 causal ~2% and no test saw (docs/results/2026-11-30-h200-session55.md). Measure
# such a change (kernel-only A/B), then raise the budget here with the figures. Session 60: bf16
# d96 causal long rows 8 -> 16 with the plain copy for 96's narrow (d80) copy (d80 rows
# +0.4..+2.9%, bf16 d96 causal rows 1.001-1.009; docs/results/2026-12-02-h200-session60.md).
# Session 62: bf16 d256 full 0 -> 8 and causal 24 -> 32 with the bounded softcap step's own copy on
# head dim 256 (softcap 30 rows +1.3..+10.5%, plain rows 0.989-1.011;
# docs/results/2026-12-02-h200-session62.md).
# Session 63: the balanced causal walk (tile_policy.h fwd_balanced_walk: 64, 96, 128; a sorted tail
# for dense pairs, a snake with paired middles for packed batches) grew 13 causal kernels' frames by
# 8-16 bytes (fp16 64 long rows packed 8 -> 24); none of the new local loads or stores lies between
# a kernel's first and last HGMMA; dense causal rows +0.4..+4.2% from 2048 keys (S1024 -1.5..+3.6%),
# packed mixed-length causal rows +3.3..+5.7%, full rows and the 192 / 256 kernels (SASS-identical)
# within noise (docs/results/2026-12-02-h200-session63.md).
SM90A_FWD_STACK_BUDGETS = {
    ("fp16", 64, True, 0, True): 32, ("fp16", 64, True, 1, True): 24, ("fp16", 64, True, 2, True): 40,
    ("fp16", 96, True, 0, False): 24, ("fp16", 96, True, 1, False): 16,
    ("fp16", 128, True, 0, False): 32, ("fp16", 128, True, 2, False): 32,
    ("fp16", 192, False, 1, False): 8, ("fp16", 192, True, 0, False): 24, ("fp16", 192, True, 3, False): 24,
    ("fp16", 256, True, 0, False): 24,
    ("bf16", 64, True, 0, True): 32, ("bf16", 64, True, 1, False): 16, ("bf16", 64, True, 1, True): 56,
    ("bf16", 64, True, 2, True): 40,
    ("bf16", 96, True, 0, False): 24, ("bf16", 96, True, 1, False): 16,
    ("bf16", 128, True, 0, False): 32, ("bf16", 128, True, 2, False): 32,
    ("bf16", 192, False, 1, False): 8, ("bf16", 192, True, 0, False): 24, ("bf16", 192, True, 3, False): 24,
    ("bf16", 256, False, 0, False): 8, ("bf16", 256, True, 0, False): 32,
}
MEMBER = re.compile(r"^member .*:(?P<obj>[^:/]+\.o):\s*$")
TU_KEY = re.compile(r"fwd_(?P<dtype>fp16|bf16)_sm90a_d(?P<head_dim>\d+)_(?P<mask>full|causal)")
BWD_TU_KEY = re.compile(r"bwd_(?P<dtype>fp16|bf16)_sm90a_d(?P<head_dim>\d+)_(?P<mask>full|causal)")
CODE_FOR = re.compile(r"^\s*code for (?P<arch>sm_\w+)\s*$")
FUNCTION = re.compile(r"^\s*Function : (?P<name>\S+)\s*$")
INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?(?P<op>[A-Z][A-Z0-9_]*)")
RES_ARCH = re.compile(r"^\s*arch = (?P<arch>sm_\w+)\s*$")
RES_FUNCTION = re.compile(r"^\s*Function (?P<name>\S+):\s*$")
RES_STACK = re.compile(r"\bSTACK:(?P<bytes>\d+)\b")

# hgmma: [HGMMA instructions, those that wait for their own completion (gsb0)];
# r2ur: [R2UR moves since the first HGMMA, of them those before the last HGMMA].
Kernel = collections.namedtuple("Kernel", "member arch name opcodes hgmma r2ur")


def run_cuobjdump(*args):
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(FLAGS.nvdisasm)) + os.pathsep + "/usr/bin:/bin")
    proc = subprocess.run([FLAGS.cuobjdump, *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise AssertionError("cuobjdump %s failed (rc %d): %s" % (" ".join(args), proc.returncode, proc.stderr[-2000:]))
    return proc.stdout


def parse_sass(text):
    """cuobjdump -sass output -> [Kernel]; opcodes is the set of instruction mnemonics."""
    kernels = []
    member = arch = None
    current = None
    for line in text.splitlines():
        m = MEMBER.match(line)
        if m:
            member, arch, current = m.group("obj"), None, None
            continue
        m = CODE_FOR.match(line)
        if m:
            arch, current = m.group("arch"), None
            continue
        m = FUNCTION.match(line)
        if m:
            current = Kernel(member, arch, m.group("name"), set(), [0, 0], [0, 0])
            kernels.append(current)
            continue
        m = INSTRUCTION.match(line)
        if m and current is not None:
            current.opcodes.add(m.group("op"))
            if m.group("op") == "HGMMA":
                current.hgmma[0] += 1
                current.hgmma[1] += "gsb0" in line
                current.r2ur[1] = current.r2ur[0]
            elif m.group("op") == "R2UR" and current.hgmma[0] > 0:
                current.r2ur[0] += 1
    return kernels


def parse_res_usage(text):
    """cuobjdump -res-usage output -> [(arch, kernel name, stack frame bytes)]."""
    out = []
    arch = name = None
    for line in text.splitlines():
        m = RES_ARCH.match(line)
        if m:
            arch = m.group("arch")
            continue
        m = RES_FUNCTION.match(line)
        if m:
            name = m.group("name")
            continue
        m = RES_STACK.search(line)
        if m and name is not None:
            out.append((arch, name, int(m.group("bytes"))))
            name = None
    return out


def sm90a_tu_key(member):
    m = TU_KEY.search(member or "")
    return (m.group("dtype"), int(m.group("head_dim")), m.group("mask") == "causal") if m else None


def sm90a_bwd_tu_key(member):
    m = BWD_TU_KEY.search(member or "")
    return (m.group("dtype"), int(m.group("head_dim")), m.group("mask") == "causal") if m else None


class SassTest(absltest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.kernels = parse_sass(run_cuobjdump("-sass", FLAGS.extension))
        cls.sm90a = [k for lib in FLAGS.sm90a_lib for k in parse_sass(run_cuobjdump("-sass", lib))]
        cls.sm90a_bwd = [k for lib in FLAGS.sm90a_bwd_lib for k in parse_sass(run_cuobjdump("-sass", lib))]

    def test_parser_sees_the_kernels_and_their_instructions(self):
        # Guards every check below against vacuity: the dump was parsed into kernels with code.
        # Forward: flash_fwd_kernel (sm80/sm89) and flashcore::hopper::fwd_kernel (sm90a), one per
        # (arch, dtype, head_dim, causal). Backward: flash_bwd_kernel, one per (arch, dtype,
        # head_dim, causal, deterministic) on all three archs.
        fwd = [k for k in self.kernels if "fwd_kernel" in k.name]
        bwd = [k for k in self.kernels if "flash_bwd_kernel" in k.name]
        self.assertGreaterEqual(len(fwd), 3 * len(DTYPES) * len(FWD_HEAD_DIMS) * 2, [k.name for k in self.kernels])
        self.assertGreaterEqual(len(bwd), 3 * len(DTYPES) * len(BWD_HEAD_DIMS) * 2 * 2, [k.name for k in self.kernels])
        for k in fwd + bwd:
            self.assertGreater(len(k.opcodes), 10, k.name)
            self.assertIn("EXIT", k.opcodes, k.name)

    def test_sm90a_wgmma_is_not_serialized(self):
        # ptxas serializes a kernel's wgmma when it runs short of registers (warning C7512) or meets
        # them in a divergent path (C7520), and the build still succeeds: then every HGMMA waits
        # for its own completion (gsb0), where a pipelined kernel waits once per commit group --
        # at most 0.17 of its HGMMAs in every sm90a kernel on 2026-11-24, 1.0 in session 18's
        # first 80-row backward (docs/results/2026-11-24-h100-session18.md).
        checked = [k for k in self.kernels if k.arch == "sm_90a" and k.hgmma[0] > 0]
        self.assertNotEmpty(checked)
        for k in checked:
            total, waiting = k.hgmma
            self.assertLess(waiting, total / 2,
                            "%s: %d of its %d HGMMA wait for themselves (gsb0): ptxas serialized its wgmma"
                            % (k.name, waiting, total))

    def test_sm90a_wgmma_descriptors_stay_in_uniform_registers(self):
        # wgmma takes its shared-memory descriptors in uniform registers. Where ptxas computes them
        # in vector registers it moves each one over (R2UR) before its HGMMA: the 256 causal
        # forward's main loop had 119 such moves and a lane-0 barrier arrival once gave the 256 and
        # 192 forwards 161 / 152, costing 1-2% (docs/results/2026-11-29-h200-session37.md). Since
        # session 37 every sm90a kernel has at most 3 between its first and last HGMMA.
        checked = [k for k in self.kernels if k.arch == "sm_90a" and k.hgmma[0] > 0]
        self.assertNotEmpty(checked)
        for k in checked:
            self.assertLessEqual(k.r2ur[1], 8, "%s: %d R2UR moves among its HGMMAs: wgmma descriptors left the "
                                 "uniform registers" % (k.name, k.r2ur[1]))

    def test_sm90a_forward_stack_frames_stay_within_their_budgets(self):
        found = {}
        for arch, name, stack in parse_res_usage(run_cuobjdump("-res-usage", FLAGS.extension)):
            m = HOPPER_FWD_ARGS.search(name)
            if arch != "sm_90a" or m is None:
                continue
            key = (m.group("dtype").lower(), int(m.group("head_dim")), m.group("causal") == "1", int(m.group("tile")),
                   m.group("pack") == "1")
            self.assertNotIn(key, found, "two sm90a forward kernels read as %s" % (key,))
            found[key] = stack
        # Guards against vacuity: every (dtype, head_dim, causal) has a default-tile kernel, and
        # every budget names a kernel that exists.
        self.assertEqual({(d, h, c) for d, h, c, t, _ in found if t == 0},
                         {(d, h, c) for d in DTYPES for h in SM90A_FWD_HEAD_DIMS for c in (False, True)})
        self.assertEmpty(sorted(set(SM90A_FWD_STACK_BUDGETS) - set(found)), "budgets of kernels that do not exist")
        over = {key: (stack, SM90A_FWD_STACK_BUDGETS.get(key, 0)) for key, stack in found.items()
                if stack > SM90A_FWD_STACK_BUDGETS.get(key, 0)}
        self.assertEmpty(over, "sm90a forward kernels whose stack frame (spills) grew past its budget, "
                         "(dtype, head_dim, causal, tile, pack_gqa): (bytes, budget)")

    def test_extension_has_sass_for_exactly_its_three_archs(self):
        self.assertEqual({k.arch for k in self.kernels}, {"sm_80", "sm_89", "sm_90a"})

    def test_extension_ptx_is_only_the_portable_compute_80_libraries(self):
        listing = run_cuobjdump("-lptx", FLAGS.extension)
        files = re.findall(r"PTX file\s+\d+: \S+\.(sm_\w+)\.ptx", listing)
        # one per generated TU: (fwd x FWD_HEAD_DIMS + bwd x BWD_HEAD_DIMS) x dtype x (full, causal),
        # and decode x DECODE_HEAD_DIMS x dtype (causal is a run-time argument there)
        self.assertLen(files, ((len(FWD_HEAD_DIMS) + len(BWD_HEAD_DIMS)) * 2 + len(DECODE_HEAD_DIMS)) * len(DTYPES),
                       listing)
        archs = set(files)
        self.assertEqual(archs, {"sm_80"}, listing)

    def test_ptx_libraries_carry_no_sass(self):
        self.assertLen(FLAGS.ptx_lib, 3 * len(DTYPES))  # (fwd, bwd, decode) x dtype
        for lib in FLAGS.ptx_lib:
            self.assertNotIn("ELF file", run_cuobjdump("-lelf", lib), lib)
            self.assertIn("PTX file", run_cuobjdump("-lptx", lib), lib)

    def test_sm80_sm89_kernels_use_hmma_and_neither_hgmma_nor_tma(self):
        checked = checked_bwd = 0
        for k in self.kernels:
            if k.arch not in ("sm_80", "sm_89"):
                continue
            bad = sorted(op for op in k.opcodes if op.startswith("HGMMA") or op.startswith("UTMA"))
            self.assertEmpty(bad, "%s %s" % (k.arch, k.name))
            if "flash_fwd_kernel" in k.name:
                self.assertIn("HMMA", k.opcodes, "%s %s" % (k.arch, k.name))
                checked += 1
            if "flash_bwd_kernel" in k.name:
                self.assertIn("HMMA", k.opcodes, "%s %s" % (k.arch, k.name))
                checked_bwd += 1
        self.assertEqual(checked, 2 * len(DTYPES) * len(FWD_HEAD_DIMS) * 2)  # 2 archs x dtype x d x causal
        self.assertEqual(checked_bwd, 2 * len(DTYPES) * len(BWD_HEAD_DIMS) * 2 * 2)  # ... x deterministic

    def test_sm90a_libraries_are_read_per_tu(self):
        keys = {sm90a_tu_key(k.member) for k in self.sm90a}
        want = {(d, h, c) for d in DTYPES for h in SM90A_FWD_HEAD_DIMS for c in (False, True)}
        self.assertEqual(keys, want, sorted({k.member for k in self.sm90a}, key=str))
        self.assertEqual({k.arch for k in self.sm90a}, {"sm_90a"})

    def test_hopper_kernels_use_wgmma_and_tma(self):
        for k in self.sm90a:
            if HOPPER_SYMBOL.search(k.name):
                self.assertIn("HGMMA", k.opcodes, "%s in %s has no HGMMA" % (k.name, k.member))
                self.assertIn("UTMALDG", k.opcodes, "%s in %s has no UTMALDG" % (k.name, k.member))

    def test_every_sm90a_key_has_a_hopper_kernel_when_expected(self):
        if not FLAGS.expect_hopper:
            # Not a pass of the Hopper expectation: the BUILD flag says it is not in force yet.
            self.skipTest("--expect_hopper=0: the Hopper kernel is not required yet (tests/BUILD.bazel)")
        found = collections.defaultdict(list)
        for k in self.sm90a:
            if HOPPER_SYMBOL.search(k.name) and {"HGMMA", "UTMALDG"} <= k.opcodes:
                found[sm90a_tu_key(k.member)].append(k.name)
        missing = [(d, h, c) for d in DTYPES for h in SM90A_FWD_HEAD_DIMS for c in (False, True)
                   if not found[(d, h, c)]]
        self.assertEmpty(missing, "sm90a (dtype, head_dim, causal) without a Hopper kernel with HGMMA and UTMALDG")

    def test_sm90a_backward_has_the_wgmma_kernel_and_the_mma_sync_fallback(self):
        self.assertLen(FLAGS.sm90a_bwd_lib, len(DTYPES))
        want = {(d, h, c) for d in DTYPES for h in SM90A_BWD_HEAD_DIMS for c in (False, True)}
        self.assertEqual({sm90a_bwd_tu_key(k.member) for k in self.sm90a_bwd}, want,
                         sorted({k.member for k in self.sm90a_bwd}, key=str))
        hopper = collections.defaultdict(list)
        mma_sync = collections.defaultdict(list)
        for k in self.sm90a_bwd:
            key = sm90a_bwd_tu_key(k.member)
            if HOPPER_BWD_KERNEL.search(k.name):
                self.assertIn("HGMMA", k.opcodes, "%s in %s has no HGMMA" % (k.name, k.member))
                self.assertIn("UTMALDG", k.opcodes, "%s in %s has no UTMALDG" % (k.name, k.member))
                flags_match = HOPPER_BWD_FLAGS.search(k.name)
                self.assertIsNotNone(flags_match, "%s in %s: template flags not found" % (k.name, k.member))
                hopper[key].append(tuple(int(flags_match.group(g)) for g in ("det", "sink", "softcap")))
            elif "flash_bwd_kernel" in k.name:
                self.assertIn("HMMA", k.opcodes, "%s in %s" % (k.name, k.member))
                self.assertNotIn("HGMMA", k.opcodes, "%s in %s" % (k.name, k.member))
                mma_sync[key].append(k.name)
        # Every sm90a backward TU: the wgmma kernel (dQ through the writer, default and
        # deterministic, each without and with the sink's gradient, and the default path's
        # packed-softcap variant) and, but at 96 (whose fallback is the 128 TU's), the mma.sync
        # kernel (layouts the TMA cannot describe).
        self.assertEmpty(sorted(key for key in want if sorted(hopper[key]) != HOPPER_BWD_VARIANTS),
                         "sm90a bwd TUs without the five wgmma kernels (deterministic, sink gradient, "
                         "packed softcap) %s: %s" % (HOPPER_BWD_VARIANTS, dict(hopper)))
        with_mma_sync = {key for key in want if key[1] in SM90A_BWD_MMA_SYNC_HEAD_DIMS}
        self.assertEqual({key for key in want if mma_sync[key]}, with_mma_sync,
                         "sm90a bwd TUs with the mma.sync kernel")


if __name__ == "__main__":
    absltest.main()
