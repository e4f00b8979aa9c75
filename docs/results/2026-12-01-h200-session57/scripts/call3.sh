# Session 57 call 3: call 2's window-2048 row (0.965) -- which kernel each build runs there, and
# its time, alternating processes head / new / new / head.
set -u
export CARRY=.carry_s57 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head new
for b in head new new head; do
  echo "$b: $(PYTHONPATH=$DC_AB/$b/py timeout 60 python3 docs/results/2026-12-01-h200-session57/scripts/which_kernel.py 2>&1 | tail -1)"
done | tee $OUT/which_kernel.txt
dc_finish
