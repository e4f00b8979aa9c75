#!/bin/bash
# Session 8, call C (H100): tools/bench/head_dim_pair.py on branch headdim-v's attention bundle
# (flashcore, cuDNN and mem-efficient SDPA in one process; FA4 not installed in this call).
C=$(cd "$(dirname "$0")" && pwd)
echo "branch $(cat $C/COMMIT)"
W=/tmp/vc; rm -rf $W; mkdir -p $W/new; tar xzf $C/vdim_attention_bundle.tar.gz -C $W/new
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
R=$W/new/bundle/runfiles
export PYTHONUNBUFFERED=1
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 400 python3 $C/head_dim_pair.py --rounds 3 > $OUT/head_dim_pair.log 2>&1
echo "rc=$?"; tail -32 $OUT/head_dim_pair.log
