# Session 58 call 1: head dim 128 with pack-GQA kernels (experiment build `pack128`: tile_policy.h
# fwd_has_pack_gqa takes 128), pack on / off in one process (pack_rows.py), bf16 and fp16.
set -u
export CARRY=.carry_s58 DC_DEADLINE=500
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
dc_unpack pack128
PYTHONPATH=$DC_AB/pack128/py timeout 420 python3 docs/results/2026-12-01-h200-session58/scripts/pack_rows.py \
  --rounds 3 > $OUT/ab.txt 2> $OUT/err.txt
echo "rc=$? at $(dc_elapsed) s"; tail -3 $OUT/err.txt; grep MISMATCH $OUT/ab.txt
dc_table unpack pack
dc_finish
