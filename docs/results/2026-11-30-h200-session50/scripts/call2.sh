# Call 2 (session 50): the packed backward's tails zeroed by the preprocess kernel under capture
# (BwdParams::zero_packed_tails; the op zeroed all of dq / dk / dv before), the main kernels'
# early exit of key blocks past their sequence, and the fragment-order side kernels' sequence
# search as one CTA-wide count (was one thread's binary search), `tails` against HEAD (`head`).
# Predicted (call 1's probe): captured packed backward -4..-5% time on the 64 x 100..4000 batch
# (the 531 us of fills of a 12.0 ms d64 causal call go; 4 x 4096 -3..-4%), plus ~0.3..1% from the
# early exit and ~1..1.5% from the search on the mixed batch only (d64); dense rows unchanged.
set -u
export CARRY=.carry_s50 DC_DEADLINE=480
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session50/scripts
dc_unpack head tails
DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 2 head tails -- --passes bwd --rep 25
dc_ab 1 head tails -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096 --nofeatures --rep 20
dc_table head tails
DC_AB_TIMEOUT=150 DC_AB_CMD="python3 $S/varlen_ab.py" dc_ab 1 tails -- --passes fwd --rep 25
# ncu of the side kernels (preprocess, dQ convert) at the paper grid's S1024 (16k tokens), d64
# (fragment order) and d128 (row order): their DRAM throughput against the ~4.3 TB/s the
# d128 convert reached in call 1's profile
for d in 64 128; do
  PYTHONPATH=$DC_AB/tails/py timeout 90 ncu --clock-control none --kernel-name regex:"bwd_(preprocess|convert)" \
    --launch-skip 2 --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis python3 kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim $d \
    --seqlen 1024 --causal --warmup 2 > $OUT/ncu_side_d$d.txt 2>&1
  echo "ncu d$d rc=$?"; grep -E "bwd_|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Grid Size" $OUT/ncu_side_d$d.txt | head -20
done
PYTHONPATH=$DC_AB/tails/py timeout 100 python3 $S/varlen_bwd_grid_probe.py 1 > $OUT/probe_tails.txt 2>&1
grep -E "kernel|given_max:" $OUT/probe_tails.txt
dc_finish
