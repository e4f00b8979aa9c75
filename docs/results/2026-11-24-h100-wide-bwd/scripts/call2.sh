#!/bin/bash
# s11 call 2: the wide backward against cuDNN and FA2 (eager autograd, every backend in one process),
# its deterministic mode, and one ncu reading of the d256 kernel.
C=$PWD/.carry_s11
mkdir -p /tmp/n && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
R=/tmp/n/bundle/runfiles
T0=$SECONDS
(cd /tmp/n && timeout 200 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=192,256 --seqlens=1024,4096,16384 \
  --dtypes=bf16,fp16 --causal=both --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 \
  --noprofile_kernels --time_budget_s=180 --out_dir=/tmp/bwd) > $OUT/bench_bwd.log 2>&1
echo "bench rc=$? $((SECONDS-T0)) s"; grep "^\[" $OUT/bench_bwd.log | cut -c1-170; cp /tmp/bwd/*.json $OUT/ 2>/dev/null
T0=$SECONDS
(cd /tmp/n && timeout 80 python3 bundle/run.py -- --mode=bwd --rows=bf16:d256:full:s4096,bf16:d256:causal:s4096 \
  --backends=flashcore,flashcore_det --warmup_ms=10 --rep_ms=25 --nokernel_timing --host_calls=0 --noprofile_kernels --out_dir=/tmp/det) > $OUT/det.log 2>&1
echo "det rc=$? $((SECONDS-T0)) s"; grep "^\[" $OUT/det.log | cut -c1-170
T0=$SECONDS
cd $R/_main && PYTHONPATH=$R/_main/py timeout 150 ncu --clock-control none --kernel-name-base demangled -c 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis \
  -k regex:bwd_wide_kernel python3 kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 256 --seqlen 4096 > $OUT/ncu_d256.txt 2>&1
echo "ncu rc=$? $((SECONDS-T0)) s"
grep -E "Duration|Throughput|Shared|Pipe|Issue|Stall|Warp Cycles|Bank|Eligible|Busy" $OUT/ncu_d256.txt | head -40
