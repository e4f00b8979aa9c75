# Session 56 call 6: the landed form (`new`: the 192-row tiles run a window's full blocks alone, the
# 128-row tiles keep the quarter rule's pairs; windows under 1024 keys on the 128-row tile; the
# backward's 64 MB chunk budget) against `head` (calls 2-3's build): ab_rows.py in alternating
# processes, head / new / new / head / head / new; then the suites on new.
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack head new
i=0
for b in head new new head head new; do
  i=$((i + 1))
  PYTHONPATH=$DC_AB/$b/py timeout 100 python3 docs/results/2026-12-01-h200-session56/scripts/ab_rows.py \
    > $OUT/ab_${i}_$b.json 2> $OUT/ab_${i}_$b.err
  echo "$b ($i) rc=$? at $(dc_elapsed) s"
done
python3 docs/results/2026-12-01-h200-session56/scripts/ab_table.py $OUT
dc_suites "gpu_h200_features:300 gpu_h200:300 gpu_h200_edge:240 gpu_h200_fuzz:300"
dc_finish
