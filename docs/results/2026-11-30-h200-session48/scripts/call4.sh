# Session 48, call 4: issue 13's mixed-length varlen cost (session 47's varlen_mixed_cost.py: call
# 5's 64 lengths of 100..4000 against 4 x 4096, kernel-only) before (`pre`, abccd75's kernels) and
# after (`new`, 652a9bb) the backward's mask change, the builds alternating, one round a run.
set -u
export CARRY=.carry_s48b DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack pre new
S=docs/results/2026-11-30-h200-session47/scripts
for r in 1 2; do
  for b in pre new; do
    [ "$(dc_elapsed)" -gt "$DC_DEADLINE" ] && { echo "deadline: skipped $b r$r"; continue; }
    echo "== $b r$r" | tee -a $OUT/varlen_mixed.txt
    PYTHONPATH=$DC_AB/$b/py timeout 150 python3 $S/varlen_mixed_cost.py 1 >> $OUT/varlen_mixed.txt 2>&1
    grep "mixed /" $OUT/varlen_mixed.txt | tail -8
  done
done
dc_finish
