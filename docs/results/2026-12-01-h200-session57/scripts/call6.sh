# Session 57 call 6: the final build (`new`: the growing-block count in 32-bit arithmetic, written so
# that the unpacked kernels keep their SASS -- only the six masked pack-GQA kernels differ from
# session 56's build) against `head`: ab_rows.py in alternating processes, head / new / new / head;
# then the suites the change reaches.
set -u
export CARRY=.carry_s57 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack head new
i=0
for b in head new new head; do
  i=$((i + 1))
  PYTHONPATH=$DC_AB/$b/py timeout 100 python3 docs/results/2026-12-01-h200-session57/scripts/ab_rows.py \
    > $OUT/ab_${i}_$b.json 2> $OUT/ab_${i}_$b.err
  echo "$b ($i) rc=$? at $(dc_elapsed) s"
done
python3 docs/results/2026-12-01-h200-session56/scripts/ab_table.py $OUT
dc_suites "gpu_h200_features:200 gpu_h200:150 gpu_h200_hf:150 gpu_h200_fuzz:150 gpu_h200_edge:100"
dc_finish
