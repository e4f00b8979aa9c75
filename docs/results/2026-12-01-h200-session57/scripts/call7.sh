# Session 57 call 7: calls 2 and 6 read the window-2048 row 0.965 (head / new) though both builds run
# the same kernel there; order_probe.py times it before and after the window-1024 row, head / new /
# new / head.
set -u
export CARRY=.carry_s57 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack head new
for b in head new new head; do
  echo "$b: $(PYTHONPATH=$DC_AB/$b/py timeout 60 python3 docs/results/2026-12-01-h200-session57/scripts/order_probe.py 2>&1 | tail -1)"
done | tee $OUT/order_probe.txt
dc_finish
