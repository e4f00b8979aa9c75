# Session 62, call 5: `c` against `head` at head dim 200 (256's narrow copy, predicated), bf16,
# plain and softcap 30, kernel-only forward rows in alternating processes.
set -u
export CARRY=.carry_s62 DC_DEADLINE=200 DC_AB_TIMEOUT=60
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
dc_unpack head c
dc_ab 3 head c -- --dtype bf16 --dims 200 --passes fwd --seqlens 1024,4096,16384 --softcaps 0,30 --nofeatures --rep 40
dc_table head c
dc_finish
