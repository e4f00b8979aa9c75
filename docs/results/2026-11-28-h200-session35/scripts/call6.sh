# Session 35, device call 6 (H200): where v4's loss (call 1: 0.73-0.93x HEAD) comes from, and the
# smoke checks call 1 ran but whose output its tail cut. Carry .carry_s35 (head, v4, m as call 1).
# 1. smoke.py on v4 and m (dQ / dK / dV against float64 SDPA, dense shapes);
# 2. backward kernel-only A/B, alternating processes, 2 rounds, bf16, d64 / d128, S 1024 / 4096 /
#    16384: head, v4 (dQ converted in the kernel), v4 with FLASHCORE_BWD_DQ_CONVERT_KERNEL=1 (`v4off`:
#    the same kernel -- its larger shared storage, the idle converter warp, the writer's ring -- but
#    the launcher leaves dq_convert_in_kernel off: no signals, no counters, the convert kernel runs).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=docs/results/2026-11-28-h200-session35/scripts
C=.carry_s35
t0=$(date +%s)
for v in head v4 m; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
for v in v4 m; do echo "== smoke $v"; PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 $R/smoke.py 2>&1 | tail -8; done | tee $OUT/smoke.txt
for r in 1 2; do for v in head v4 v4off; do
  py=/tmp/ab/${v%off}/py; env=""; [ $v = v4off ] && env="FLASHCORE_BWD_DQ_CONVERT_KERNEL=1"
  env $env PYTHONPATH=$py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
  echo "${v}_r$r done at $(( $(date +%s) - t0 )) s"
done; done
for v in v4 v4off; do echo "== $v / head"; python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head $v; done
