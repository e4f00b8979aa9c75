# Session 55 call 2: `new` (the bounded softcap step's own mainloop copy on the 192-row tiles)
# against `head` again: the bf16 d64 / d96 rows of call 1 (two more rounds), GQA 4 at d64, and
# controls whose SASS differs only in uniform-register setup (bf16 d128, fp16 d64 / d128), one round.
set -u
export CARRY=.carry_s55 DC_DEADLINE=520
. tools/bench/device_call.sh
dc_unpack head new
dc_ab 2 head new -- --passes fwd --dims 64,96 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_ab 2 head new -- --passes fwd --dims 64 --groups 4 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_ab 1 head new -- --passes fwd --dims 128 --seqlens 4096,16384 --nofeatures
dc_ab 1 head new -- --passes fwd --dtype fp16 --dims 64,128 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_table head new
dc_finish
