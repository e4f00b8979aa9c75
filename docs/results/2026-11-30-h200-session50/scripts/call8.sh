# Call 8 (session 50): only the fragment-order dQ convert (d64) on two half slabs a CTA (`fc2`),
# the one part of call 7's change that gained in its ncu (53.2 -> 47.0 us at 16k tokens), against
# the landed build (`tails`); then its checks. Four functions change SASS (the two fragment
# converts, the two fragment preprocesses: the half slab's index now passed in).
# Predicted: convert -6 us a call at 16k tokens, d64 S1024 backward +0.7..+1% (under the A/B's
# resolution: the ncu is the measurement; the A/B checks nothing regressed), d128 rows unchanged.
set -u
export CARRY=.carry_s50 DC_DEADLINE=300
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session50/scripts
dc_unpack tails fc2
PYTHONPATH=$DC_AB/fc2/py timeout 90 ncu --clock-control none --kernel-name regex:"bwd_(preprocess|convert)" \
  --launch-skip 2 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section MemoryWorkloadAnalysis python3 kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 64 \
  --seqlen 1024 --causal --warmup 2 > $OUT/ncu_side_d64.txt 2>&1
echo "ncu rc=$?"; grep -E "bwd_|Duration|DRAM Throughput|Registers Per|Achieved Occupancy" $OUT/ncu_side_d64.txt | head -12
dc_ab 2 tails fc2 -- --dtype bf16 --passes bwd --dims 64 --seqlens 1024,2048,4096 --nofeatures --det --rep 20
DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 1 tails fc2 -- --passes bwd --dims 64 --batches mixed,eq4096x4 --rep 25
dc_table tails fc2
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=200 dc_sanitize fc2 $S/san_packed_tails.py
dc_suites "gpu_h200_bwd:230 gpu_h200_features:240 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
