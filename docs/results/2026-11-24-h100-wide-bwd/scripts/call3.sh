#!/bin/bash
# s11 call 3: ncu of the d256 wide backward kernel (bf16, S 4096, full) and its deterministic mode's cost.
C=$PWD/.carry_s11; REPO=$PWD
mkdir -p /tmp/n && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
R=/tmp/n/bundle/runfiles
T0=$SECONDS
(cd /tmp/n && timeout 80 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=192,256 --seqlens=4096 --dtypes=bf16 --causal=both \
  --backends=flashcore,flashcore_det --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --out_dir=/tmp/det) > $OUT/det.log 2>&1
echo "det rc=$? $((SECONDS-T0)) s"; grep "^\[" $OUT/det.log | cut -c1-170
T0=$SECONDS
PYTHONPATH=$R/_main/py timeout 150 ncu --clock-control none --kernel-name-base demangled -c 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
  -k regex:bwd_wide_kernel python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 256 --seqlen 4096 > $OUT/ncu_d256.txt 2>&1
echo "ncu rc=$? $((SECONDS-T0)) s"
grep -E "Duration|Throughput|Shared|Pipe|Issue|Stall|Warp Cycles|Bank|Eligible|Busy|Utilization" $OUT/ncu_d256.txt | head -50
