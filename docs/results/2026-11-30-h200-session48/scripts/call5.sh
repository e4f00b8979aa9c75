# Session 48, call 5: mixed-length varlen against 4 x 4096 and against 64 x 2,288 (the mixed
# batch's mean length, the same tokens), kernel-only, 652a9bb's build, 2 rounds.
set -u
export CARRY=.carry_s48b DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 280 python3 docs/results/2026-11-30-h200-session48/scripts/varlen_mean_cost.py 2 > $OUT/varlen_mean.txt 2>&1
grep -v "^r" $OUT/varlen_mean.txt
dc_finish
