# NOT RUN (session 34 had 140 s of device time left). Prepared for the next session, two candidate
# builds against HEAD, each a diff in this folder applied alone to HEAD (both compile; neither measured):
#   v4  = in_kernel_dq_convert_v4_poll_and_claim.diff: the in-kernel dQ convert (write-up section 3)
#         with the writer adding a completed step by `red.release` (call 6's `redrel`: 0.967-1.041x)
#         and the converter warp polling the counter with relaxed loads one step behind, claiming a
#         complete block with one returned atomic. ptxas: the writer's path without spills, the
#         consumers' 2 STL / 2 LDL in the d128 epilogue as v1-v3, the converter spilling at 24
#         registers. Predicted: +0..+5% at S1024, 0.98-1.00 from S4096 (v2 / v3's `off` cost 1-2%);
#         below 0.99 from S4096: drop it.
#   pdl = bwd_programmatic_dependent_launch.diff: the sm90a backward's main kernel launched as the
#         preprocess's programmatic dependent (it waits for it only before reading D and before the
#         dQ writer's first add), the convert kernel as the main kernel's; the griddepcontrol
#         helpers move from kernels/decode/ to kernels/common/ (decode SASS identical, cuobjdump).
#         ptxas: no spills. Predicted: the main kernel's prologue (K, V, first Q / dO loads) under the
#         preprocess's last wave and one launch gap less: 3-8 us, +0.5..+1.5% at S1024, 0 at S16384.
# A read-only review (session 34) found no deadlock, double or missed conversion, or ordering gap;
# its fixes are in both diffs: v4's writer reconverges its warp after lane 0's signal (__syncwarp
# before the next bar.sync) and fences the staging buffers' generic reads before a new block's bulk
# copies; pdl's CTAs without steps still wait for the preprocess (else the main grid could finish
# first and the convert kernel read dq_accum unzeroed), and D is read by a coherent load, not __ldg.
# Open risk: v4's bulk copies read whole kAccumCols-wide dq_accum rows, of which the preprocess
# zeroes only the columns up to head_dim rounded to 32 (d96 on its 128-wide rows, predicated head
# dims): the values are never stored, but compute-sanitizer initcheck may report the reads -- run
# the sanitizer sweep on v4 before landing it. The two diffs do not apply together (bwd_launch.cuh):
# merged, the main kernel must still wait before its first counter add, and the convert kernel is
# not launched where v4 converts in the kernel.
# Each build's `py` tree (from its //tests:gpu_h200_bundle, or _h100_) tar cJf'd into .carry/<name>.tar.xz
# (head, v4, pdl); v4's whole bundle as .carry/gpu_<kind>_bundle.tar.gz for the suites (run them on
# pdl's bundle too before landing it). First correctness, then a backward kernel-only A/B in
# alternating processes (2 rounds, bf16 + fp16, d64 / d128, S1024..16384).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
KIND=${KIND:-h200}
V="head v4 pdl"
for v in $V; do mkdir -p /tmp/ab/$v && tar xJf .carry/$v.tar.xz -C /tmp/ab/$v; done
CARRY=.carry SUITES="gpu_${KIND}_bwd:240 gpu_${KIND}_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
for r in 1 2; do for dt in bf16 fp16; do for v in $V; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
for v in v4 pdl; do echo "== $v / head"; python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head $v; done
