# Session 36, device call 8 (H200, right after calls 6 + 7 copied FA4's wheels to /root/keep as
# session 35's scripts/copy_fa4_wheels.sh): issue 13's forward feature rows, FA4, cuDNN and FA2
# beside flashcore in one process, HEAD's build and this session's (pack-GQA) alternating, two
# rounds each (each run its own fa4_grid_h100.sh: FA4 installed afresh, its JIT cache kept).
# Carry .carry_s36fa: attention_bundle.tar.xz (this build), head/attention_bundle.tar.xz
# (session 35's, built from e4c304a: HEAD's kernels).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
for c in .carry_s36fa .carry_s36fa/head; do mkdir -p $c/fa4 && ln -sfn /root/keep/b $c/fa4/b; done
for r in 1 2; do for v in head pack; do
  c=.carry_s36fa; [ $v = head ] && c=.carry_s36fa/head
  [ $SECONDS -gt 440 ] && { echo "time guard: skipped ${v}_r$r"; continue; }
  CARRY=$c PHASES=feat_fwd T_END=115 OUT=$OUT/${v}_r$r bash tools/bench/fa4_grid_h100.sh > /dev/null 2>&1
  echo "${v}_r$r done at $SECONDS s: $(ls $OUT/${v}_r$r | tr '\n' ' ')"
done; done
for r in 1 2; do for v in head pack; do
  f=$OUT/${v}_r$r/feat_fwd.json; [ -f $f ] && python3 docs/results/2026-11-27-h100-session24/scripts/ratios.py $f | grep -E "gqa|fc/fa4 min"
done; done
rm -f $OUT/*/results.tgz
