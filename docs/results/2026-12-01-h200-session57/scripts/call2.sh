# Session 57 call 2: the landed rule (`new`: tile_policy.h fwd_pack_window -- groups of 4 / 8 under
# windows of at most 1025 keys pack, on the 192-row tile) against `head` (session 56's final build,
# the same kernels as 4825827): ab_rows.py in alternating processes, head / new / new / head /
# head / new; then the suites on new, with memcheck and racecheck over the forward kernels while
# san_window_case.py runs the packed and unpacked 192-row tiles under windows.
set -u
export CARRY=.carry_s57 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head new
i=0
for b in head new new head head new; do
  i=$((i + 1))
  PYTHONPATH=$DC_AB/$b/py timeout 100 python3 docs/results/2026-12-01-h200-session57/scripts/ab_rows.py \
    > $OUT/ab_${i}_$b.json 2> $OUT/ab_${i}_$b.err
  echo "$b ($i) rc=$? at $(dc_elapsed) s"
done
python3 docs/results/2026-12-01-h200-session56/scripts/ab_table.py $OUT
PYTHONPATH=$DC_AB/new/py timeout 60 python3 docs/results/2026-12-01-h200-session57/scripts/san_window_case.py
export DC_SAN_TIMEOUT=330; SAN=1 dc_sanitize new docs/results/2026-12-01-h200-session57/scripts/san_window_case.py
dc_suites "gpu_h200_features:300 gpu_h200:300 gpu_h200_edge:200"
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|window sanitizer case|Error" $OUT/san_$t.log | head -5; done
dc_finish
