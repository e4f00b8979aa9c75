#!/bin/bash
# Session 17 call 16: issue 15's d192 / d256 forward rows against cuDNN on the current build
# after the masked softmax step (c941376), kernel-only TFLOP/s, every backend named in one process.
C=$PWD/.carry_s17
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
(cd /tmp/b && timeout 400 python3 bundle/run.py -- --mode=fwd --grid=paper --head_dims=192,256 \
  --seqlens=1024,2048,4096,8192,16384 --backends=flashcore,cudnn,flash --out_dir /tmp/g) > $OUT/wide_fwd.log 2>&1
echo "rc=$?"; grep -v "^ *$" $OUT/wide_fwd.log | tail -48
cp /tmp/g/*.json $OUT/ 2>/dev/null
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
