# Session 63 call 2: the dense causal walk's sorted tail (build `tail`) against session 62's
# landed kernels (`c`, SASS-identical to HEAD before this change): SM balance under ncu, then
# kernel-only forward A/B (alternating processes), then correctness: the features suite (with
# test_causal_sorted_tail_matches_float64), the main suite, memcheck + racecheck on tail cases.
set -u
export CARRY=.carry_s63 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack c tail
S=docs/results/2026-12-02-h200-session63/scripts
M=sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,gpu__time_duration.sum,launch__grid_size
PYTHONPATH=$DC_AB/tail/py timeout 120 ncu --clock-control none --metrics $M --csv \
  python3 $S/balance_probe.py > $OUT/ncu_tail.csv 2> $OUT/ncu_tail.err
echo "ncu rc=$? at $(dc_elapsed) s"
dc_ab 2 c tail -- --dtype bf16 --dims 64,128 --passes fwd --seqlens 1024,2048,4096,16384 --groups 1,4 --nofeatures --rep 40
dc_ab 1 c tail -- --dtype fp16 --dims 64,128 --passes fwd --seqlens 1024,4096,16384 --nofeatures --rep 40
dc_table c tail
DC_SAN_TIMEOUT=240 dc_sanitize tail tools/bench/san_case.py --dims 64,128 --causal causal --features plain,gqa \
  --shape 4,2400,2400 --dtypes bf16
dc_suites "gpu_h200_features:280 gpu_h200:280"
dc_finish
