# Session 34, device call 6 (H200): does a per-step reduction without a result cost the writer?
# Diagnostic builds of the second version (dropped/in_kernel_dq_convert_v2_writer_counts.diff), timed
# only (nothing converted, no convert kernel: dQ is not computed): the writer lane, two steps late,
# waits for the step's bulk groups, fences and issues `red.release.gpu.add` (`redrel`) or
# `red.relaxed.gpu.add` (`redrlx`) on the block's counter. Call 4's `nocount` (the wait alone)
# read 0.98-1.07x head. Backward kernel-only A/B, bf16, 2 rounds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s34
V="head redrel redrlx"
for v in $V; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for v in $V; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done
T=docs/results/2026-11-28-h200-session31/scripts/tab.py
for v in redrel redrlx; do echo "== $v / head"; python3 $T $OUT/ab.txt head $v; done
