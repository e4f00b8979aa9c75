# Session 59: the d192 build against head (52e5ce4), kernel-only forward rows of
# tools/bench/ab_kernels.py in alternating processes (head dim 192 and the (192, 128) pair; 96 as a
# control: its kernels are unchanged); then the d192 build beside cuDNN on issue 15's rows
# (cudnn_rows.py, one process).
set -u
export CARRY=.carry_s59 DC_DEADLINE=540 DC_AB_TIMEOUT=120
. tools/bench/device_call.sh
dc_unpack head d192
dc_ab 2 head d192 -- --dtype bf16 --dims 192,192:128,96 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 head d192 -- --dtype fp16 --dims 192 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_table head d192
PYTHONPATH=$DC_AB/d192/py:tools/bench timeout 150 python3 docs/results/2026-12-01-h200-session59/scripts/cudnn_rows.py \
  --rounds 2 > $OUT/cudnn.txt 2>&1
echo "cudnn rc=$? at $(dc_elapsed) s"
python3 tools/bench/ab_table.py $OUT/cudnn.txt cudnn fc
dc_finish
