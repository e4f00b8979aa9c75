# Session 63 call 4: the sorted tail against `c` on the head dims call 2 did not time (96, 192, 256;
# their causal kernels' stack frames grew 8-16 bytes), and a second reading of 64 / 128 causal rows.
set -u
export CARRY=.carry_s63 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack c tail
dc_ab 2 c tail -- --dtype bf16 --dims 96,192,256 --passes fwd --seqlens 1024,4096,16384 --nofeatures --rep 40
dc_ab 1 c tail -- --dtype fp16 --dims 96,192,256 --passes fwd --seqlens 1024,4096,16384 --nofeatures --rep 40
dc_ab 1 c tail -- --dtype bf16 --dims 64,128 --passes fwd --seqlens 1024,2048,4096,8192,16384 --nofeatures --rep 40
dc_table c tail
dc_finish
