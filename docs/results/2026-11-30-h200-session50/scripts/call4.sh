# Call 4 (session 50): the backward's side kernels (preprocess, dQ convert) with several rows a
# thread -- row order 4 row groups a CTA, fragment order (d64) 2 half slabs a CTA, every load of a
# CTA issued before its first reduction or store -- `units` against `tails` (call 2's build, HEAD
# fe1f31d). Predicted: the side kernels from 78-83% (row) / 73-79% (fragment) of the HBM's 4.8 TB/s
# to ~88%, -10 us (d128) / -16 us (d64) a call at 16k tokens: S1024 backward rows +1.5..+2.7%,
# S4096 +0.5..+1%, S16384 within noise.
set -u
export CARRY=.carry_s50 DC_DEADLINE=450
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session50/scripts
dc_unpack tails units
dc_ab 2 tails units -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,2048,4096,16384 --nofeatures --det --rep 20
dc_ab 1 tails units -- --dtype fp16 --passes bwd --dims 64,96,128,256 --seqlens 1024,4096 --nofeatures --rep 20
DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 1 tails units -- --passes bwd --batches mixed,eq4096x4 --rep 25
dc_table tails units
for d in 64 128; do
  PYTHONPATH=$DC_AB/units/py timeout 90 ncu --clock-control none --kernel-name regex:"bwd_(preprocess|convert)" \
    --launch-skip 2 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis python3 kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim $d \
    --seqlen 1024 --causal --warmup 2 > $OUT/ncu_side_d$d.txt 2>&1
  echo "ncu d$d rc=$?"; grep -E "bwd_|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Grid Size" $OUT/ncu_side_d$d.txt | head -20
done
dc_finish
