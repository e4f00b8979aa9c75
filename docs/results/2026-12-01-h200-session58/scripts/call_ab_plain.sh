# Session 58: the plain calls' mainloop copy (`plain`: fwd_kernel.cuh kPlainOwnLoop, head dims 64 and
# 128) against `head` (session 57's build; its kernels are SASS-identical to 4f5a646's), kernel-only
# forward rows of tools/bench/ab_kernels.py in alternating processes (dc_ab), best per row and build
# (dc_table). Paper grid rows bf16 (three rounds) and fp16 (two), the feature rows (window 4096,
# softcap 30: softcap rows take the general copy), GQA 16 / 4 at S 8192.
set -u
export CARRY=.carry_s58 DC_DEADLINE=540 DC_AB_TIMEOUT=150
. tools/bench/device_call.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
dc_unpack head plain
dc_ab 3 head plain -- --dtype bf16 --dims 64,128 --passes fwd --seqlens 1024,4096,16384
dc_ab 2 head plain -- --dtype fp16 --dims 64,128 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 2 head plain -- --dtype bf16 --dims 64,128 --passes fwd --seqlens 8192 --groups 4 --nofeatures
grep -i "error\|Traceback" $OUT/ab.txt | head -5
dc_table head plain
dc_finish
