#!/usr/bin/env bash
# ncu of the sm90a backward main kernel, d128 and d64, S4096 full, bf16

W=/tmp/w; mkdir -p $W; tar xzf .carry_s9/${PV:-b}_attention_bundle.tar.gz -C $W
R=$W/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv
which ncu || ls /usr/local/cuda*/bin/ncu
for cfg in "128 " "64 "; do
  set -- $cfg ""
  tag=d$1${2:+c}
  timeout 200 ncu --clock-control none --kernel-name-base demangled -k regex:hopper::bwd_kernel -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SourceCounters --section InstructionStats \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_pipe_uniform.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    -o $OUT/bwd_$tag -f python3 kernels/hopper/profile_one.py --mode bwd --head_dim $1 --seqlen 4096 $2 > $W/ncu_$tag.log 2>&1
  ncu -i $OUT/bwd_$tag.ncu-rep --page details > $OUT/details_$tag.txt 2>&1; tail -5 $W/ncu_$tag.log >> $OUT/details_$tag.txt
  ncu -i $OUT/bwd_$tag.ncu-rep --page source --csv --print-source sass > $W/sass_$tag.csv 2>&1
  gzip -c $W/sass_$tag.csv > $OUT/sass_$tag.csv.gz
  rm -f $OUT/bwd_$tag.ncu-rep
  tail -3 $W/ncu_$tag.log
done
ls -la $OUT
