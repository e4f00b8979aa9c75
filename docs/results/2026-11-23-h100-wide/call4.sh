#!/bin/bash
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
mkdir -p /tmp/wb && tar xzf $C/wide_attention_bundle.tar.gz -C /tmp/wb
echo "== bench bwd, head dims 128/192/200/256 (eager autograd backward)"
B="--grid=paper --dtypes=bf16,fp16 --head_dims=${BWD_DIMS:-128,192,200,256} --causal=both --seqlens=1024,4096,16384 --mode=bwd --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --time_budget_s=${BUDGET:-100}"
(cd /tmp/wb && timeout 140 python3 bundle/run.py -- $B --out_dir=/tmp/bw) > $OUT/bwd_wide.log 2>&1; echo "rc=$?"; grep "^\[" $OUT/bwd_wide.log | cut -c1-150; cp /tmp/bw/*.json $OUT/ 2>/dev/null
echo "== sanitizers above head dim 128"
mkdir -p /tmp/sb && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/sb
mkdir -p /tmp/san && OUT=/tmp/san timeout ${SAN_T:-330} python3 $C/san_wide.py /tmp/sb/bundle/runfiles > $OUT/san_wide.txt 2>&1; echo "rc=$?"; tail -8 $OUT/san_wide.txt | cut -c1-400
tar czf $OUT/san_logs.tgz -C /tmp/san . 2>/dev/null
