# Session 55 call 6: pack-GQA on / off on the landed build (fb1b828), d64 GQA rows (scripts/pack_gqa_ab.py).
set -u
export CARRY=.carry_s55
. tools/bench/device_call.sh
dc_unpack new
PYTHONPATH=$DC_AB/new/py timeout 400 python3 docs/results/2026-11-30-h200-session55/scripts/pack_gqa_ab.py 2 | tee $OUT/pack_gqa.txt
dc_finish
