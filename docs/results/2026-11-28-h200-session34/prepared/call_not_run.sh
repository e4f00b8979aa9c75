# NOT RUN (session 34 had 140 s of device time left). Prepared for the next session:
# prepared/in_kernel_dq_convert_v4_poll_and_claim.diff applied as the `cand` build, HEAD as `head`
# (each build's `py` tree from its //tests:gpu_h200_bundle (or _h100_) tar cJf'd into
# .carry/cand.tar.xz / head.tar.xz; cand's whole bundle as .carry/gpu_<kind>_bundle.tar.gz).
# v4 of the in-kernel dQ convert (section 3 of the write-up): the writer adds a completed step with
# `red.release` (call 6's `redrel`: 0.967-1.041x) and signals the converter warp, which reads the
# counter with relaxed loads one step behind and claims a complete block with one returned atomic.
# It compiles (ptxas: the writer's path without spills, the consumers' 2 STL / 2 LDL in the d128
# epilogue as in v1-v3, the converter spills at the producer warpgroup's 24 registers).
# Predicted: between `redrel` and `nocount` at S1024 (+0..+5%), 0.98-1.00 from S4096 (the new code's
# presence cost 1-2% in v2 / v3 with the convert kernel: `off`); if S4096+ reads below 0.99, drop it.
# First correctness (smoke, the backward and feature suites: the racecheck case must pass), then a
# backward kernel-only A/B in alternating processes (2 rounds, bf16 + fp16, d64 / d128, S1024..16384).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
KIND=${KIND:-h200}
for v in head cand; do mkdir -p /tmp/ab/$v && tar xJf .carry/$v.tar.xz -C /tmp/ab/$v; done
CARRY=.carry SUITES="gpu_${KIND}_bwd:240 gpu_${KIND}_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
for r in 1 2; do for dt in bf16 fp16; do for v in head cand; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head cand
