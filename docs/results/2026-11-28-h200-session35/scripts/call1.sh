# Session 35, device call 1 (H200): session 34's two prepared diffs, measured. Carry .carry_s35:
#   head.tar.xz = e4c304a's py tree; v4 = prepared/in_kernel_dq_convert_v4_poll_and_claim.diff;
#   pdl = prepared/bwd_programmatic_dependent_launch.diff; m = both merged (the converter warp waits
#   for the preprocess before polling the semaphores it zeroes; no convert kernel where v4 converts).
# 1. smoke.py on each candidate under a short timeout (a hang or a missed conversion shows here);
# 2. backward kernel-only A/B (preprocess + main + convert through the custom op, CUDA-graph replay),
#    alternating processes, 2 rounds, bf16 + fp16, d64 / d128, S 1024..16384, causal and full.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=docs/results/2026-11-28-h200-session35/scripts
C=.carry_s35
V="head v4 pdl m"
t0=$(date +%s)
for v in $V; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
for v in v4 pdl m; do echo "== smoke $v"; PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 $R/smoke.py 2>&1 | tail -8; done
echo "smoke done at $(( $(date +%s) - t0 )) s"
for r in 1 2; do for dt in bf16 fp16; do for v in $V; do
  [ $(( $(date +%s) - t0 )) -gt 545 ] && { echo "time guard: stopped before ${v}_r$r $dt"; break 3; }
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
  echo "${v}_r$r $dt done at $(( $(date +%s) - t0 )) s"
done; done; done
for v in v4 pdl m; do echo "== $v / head"; python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head $v; done
