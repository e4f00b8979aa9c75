# Session 56 call 3 (the build of call 2): the backward's chunk width where the L2 cap takes it below
# the wave width (bwd_chunk_widths.py ROWSET=2), two rounds, a process per width.
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack new
ROWSET=2 PYTHONPATH=$DC_AB/new/py timeout 400 python3 docs/results/2026-12-01-h200-session56/scripts/bwd_chunk_widths.py \
  $OUT/bwd_chunk_widths2.json 0 1 2 4 > $OUT/bwd_chunk_widths2.txt 2>&1
echo "bwd_chunk_widths rc=$? at $(dc_elapsed) s"; tail -9 $OUT/bwd_chunk_widths2.txt
dc_finish
