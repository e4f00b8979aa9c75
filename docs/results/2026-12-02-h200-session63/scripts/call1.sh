# Session 63 call 1: SM balance of the forward's persistent grid (balance_probe.py under ncu,
# sm__cycles_active avg / min / max) on session 62's landed kernels (CARRY=.carry_s63, build c:
# SASS-identical to HEAD). Also the backward main kernels' balance (--bwd).
set -u
export CARRY=.carry_s63
. tools/bench/device_call.sh
dc_unpack c
S=docs/results/2026-12-02-h200-session63/scripts
M=sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum,launch__grid_size
PYTHONPATH=$DC_AB/c/py timeout 400 ncu --clock-control none --metrics $M --csv \
  python3 $S/balance_probe.py --bwd > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc=$? at $(dc_elapsed) s"; tail -3 $OUT/ncu.err; wc -l $OUT/ncu.csv
grep -c '"' $OUT/ncu.csv
dc_finish
