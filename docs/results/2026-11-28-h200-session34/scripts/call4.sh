# Session 34, device call 4 (H200): where the in-kernel dQ convert's per-step cost comes from.
# Carry .carry_s34: head (720aed3), cand (the second version, as call 3), and two diagnostic builds
# of it that are not correct and only timed: `relaxed` (the writer's count with a relaxed atomic:
# no MEMBAR.ALL.GPU), `nocount` (the two-steps-late bulk-group wait alone: no atomic, nothing
# converted, no convert kernel: dQ is not computed). Backward kernel-only A/B, bf16, 2 rounds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s34
V="head cand relaxed nocount"
for v in $V; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for v in $V; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done
T=docs/results/2026-11-28-h200-session31/scripts/tab.py
for v in cand relaxed nocount; do echo "== $v / head"; python3 $T $OUT/ab.txt head $v; done
