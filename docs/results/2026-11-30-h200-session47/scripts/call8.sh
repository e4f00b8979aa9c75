# Session 47, device call 8 (H200, right after the three FA4 copy calls 8a-8c on the same machine:
# call4.sh p1, call4.sh p2, session 46's call3.sh fa4/b): flashcore's and FlashAttention-4's
# backward main kernels side by side under ncu, on the same tensors (session 44's
# bwd_profile_one.py: one eager backward per backend and row after warm-up, profiled between
# cudaProfilerStart / Stop), HEAD's attention bundle (0b9912d's kernels): d64 causal S1024 (0.89x
# FA4), d64 full S1024 (0.93x) and d64 full S16384 (1.02x) -- where a step's issue, stalls and
# tensor-pipe time differ. Carry .carry_fa4/attention_bundle.tar.xz.
set -u
rm -rf .carry_fa4/fa4 && mkdir -p .carry_fa4/fa4 && ln -s /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="" T_END=200 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -5
R=/tmp/fa4w/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R/_main/tools/bench:$R:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
P=docs/results/2026-11-29-h200-session44/scripts/bwd_profile_one.py
timeout 400 ncu --clock-control none --profile-from-start off \
  --kernel-name regex:"bwd_kernel|FlashAttentionBackwardSm90" \
  --section SpeedOfLight --section LaunchStats --section ComputeWorkloadAnalysis --section InstructionStats \
  --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis \
  --metrics sm__cycles_active.avg,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_red.sum \
  -o /tmp/ncu_cmp -f python3 $P flashcore,fa4 bf16:64:causal:1024 bf16:64:full:1024 bf16:64:full:16384 > $OUT/ncu_cmp.log 2>&1
echo "ncu rc=$?"; tail -4 $OUT/ncu_cmp.log
ncu -i /tmp/ncu_cmp.ncu-rep --page details > $OUT/ncu_cmp_details.txt 2>&1
ncu -i /tmp/ncu_cmp.ncu-rep --page raw --csv 2>/dev/null | gzip > $OUT/ncu_cmp_raw.csv.gz
grep -E "^  [a-zA-Z_].*\(|Duration|Elapsed Cycles|SM Active Cycles|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Executed Instructions  |Compute \(SM\) Thr|Memory Thr|L2 Hit|DRAM Thr" $OUT/ncu_cmp_details.txt | cut -c1-120 | head -90
