#!/bin/bash
# Session 6, call 3 (branch wide: head dims up to 256 on every arch, both passes): the suites that
# cover them, then the backward at 192/200/256 against cuDNN and FA2 (eager autograd backward).
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
export FLASHCORE_FUZZ_SECONDS=${FLASHCORE_FUZZ_SECONDS:-60}
SUITES="${SUITES:-bwd plain hf edge fuzz}" TMO=170 bash $C/suites.sh
echo "== bench bwd, head dims 128/192/200/256"
mkdir -p /tmp/wb && tar xzf $C/wide_attention_bundle.tar.gz -C /tmp/wb
B="--grid=paper --dtypes=bf16,fp16 --head_dims=${BWD_DIMS:-128,192,200,256} --causal=both --seqlens=1024,4096,16384 --mode=bwd --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --time_budget_s=${BUDGET:-110}"
(cd /tmp/wb && timeout 150 python3 bundle/run.py -- $B --out_dir=$OUT/bwd_wide) > $OUT/bwd_wide.log 2>&1; echo "rc=$?"; grep "^\[" $OUT/bwd_wide.log | cut -c1-170
