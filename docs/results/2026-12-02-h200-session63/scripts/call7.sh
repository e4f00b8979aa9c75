# Session 63 call 7: the packed order's snake and paired middles (`var`: tail2 + those, causal
# kernels of 64 / 96 / 128) against `tail2` and `c`: ncu balance of the packed rows, kernel-only
# packed rows (mixed 64 x 100..4000, 4 x 4096, 64 x mean) and dense causal controls, then the
# features suite (its sorted-order test) and memcheck + racecheck on packed causal cases.
set -u
export CARRY=.carry_s63 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack c tail2 var
S=docs/results/2026-12-02-h200-session63/scripts
M=sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum,launch__grid_size
PYTHONPATH=$DC_AB/var/py timeout 100 ncu --clock-control none --metrics $M --csv \
  python3 $S/balance_probe.py > $OUT/ncu_var.csv 2> $OUT/ncu_var.err
echo "ncu rc=$? at $(dc_elapsed) s"; python3 $S/balance_table.py $OUT/ncu_var.csv > $OUT/balance_var.txt; rm -f $OUT/ncu_var.csv
DC_AB_CMD="python3 $S/varlen_rows.py" dc_ab 2 c tail2 var -- --dtype bf16 --dims 64,128
DC_AB_CMD="python3 $S/varlen_rows.py" dc_ab 1 c tail2 var -- --dtype fp16 --dims 64,128 --causal causal
dc_ab 1 tail2 var -- --dtype bf16 --dims 64,128 --passes fwd --seqlens 1024,4096,16384 --nofeatures --rep 40
dc_table c tail2 var
dc_table tail2 var
DC_SAN_TIMEOUT=200 dc_sanitize var $S/san_varlen_case.py
dc_suites "gpu_h200_features:280 gpu_h200:200"
dc_finish
