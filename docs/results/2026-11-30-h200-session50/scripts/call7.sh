# Call 7 (session 50): the side kernels with two rows a thread (`units2`: row order 2 row groups a
# CTA, the loads held as raw 16-byte vectors until the reduction, each row's indices computed once;
# fragment order 2 half slabs a CTA) against the landed build (`tails`). Call 4's four rows a thread
# held as floats took the row preprocess to 94 registers (25% occupancy, 2.4 TB/s).
# Predicted: ~40 registers, 75%+ occupancy; preprocess 65 -> ~58 us and converts -3..-6 us at 16k
# tokens (ncu); S1024 backward rows +1.5..+2.2%, S4096 +0.5%, S16384 within noise.
set -u
export CARRY=.carry_s50 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack tails units2
for d in 64 128; do
  PYTHONPATH=$DC_AB/units2/py timeout 90 ncu --clock-control none --kernel-name regex:"bwd_(preprocess|convert)" \
    --launch-skip 2 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis python3 kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim $d \
    --seqlen 1024 --causal --warmup 2 > $OUT/ncu_side_d$d.txt 2>&1
  echo "ncu d$d rc=$?"; grep -E "bwd_|Duration|DRAM Throughput|Registers Per|Achieved Occupancy" $OUT/ncu_side_d$d.txt | head -20
done
dc_ab 2 tails units2 -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,2048,4096,16384 --nofeatures --det --rep 20
dc_ab 1 tails units2 -- --dtype fp16 --passes bwd --dims 64,96,128,256 --seqlens 1024,4096 --nofeatures --rep 20
dc_table tails units2
dc_finish
