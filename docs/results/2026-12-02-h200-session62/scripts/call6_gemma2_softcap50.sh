# Session 62, call 6: `c` against `head` at Gemma 2's softcap (50, inside the bounded step's 52.7),
# head dim 256, bf16, MHA and GQA groups of 2 (Gemma 2 9B: 16 query heads, 8 k/v heads),
# kernel-only forward rows in alternating processes.
set -u
export CARRY=.carry_s62 DC_DEADLINE=240 DC_AB_TIMEOUT=70
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
dc_unpack head c
dc_ab 2 head c -- --dtype bf16 --dims 256 --passes fwd --seqlens 1024,4096,8192 --softcaps 0,50 --groups 1,2 --nofeatures --rep 40
dc_table head c
dc_finish
