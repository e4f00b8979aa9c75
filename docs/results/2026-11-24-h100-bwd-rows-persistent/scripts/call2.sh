#!/bin/bash
# s13 call 2: vectorized row kernels (preprocess / convert). Suites gpu_h100_bwd + features, the
# per-kernel breakdown, memcheck of san_96.py, then A/B main / rows kernel-only (bwd).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280" bash $C/suites.sh
R=/tmp/s/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck python3 $C/san_96.py > $OUT/san_96_memcheck.log 2>&1
echo "memcheck: $(tail -1 $OUT/san_96_memcheck.log)"
mkdir -p /tmp/r && tar xzf $C/rows_attention_bundle.tar.gz -C /tmp/r
R=/tmp/r/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/prof_bwd.py --dims 64,96,128 --rows 1024:0 --backends flashcore 2>&1 | grep -v Warn | grep -v _warn > $OUT/prof_rows.log; cat $OUT/prof_rows.log | cut -c1-120
OUT=$OUT VARIANTS="main rows" REPS=2 AB_ARGS="--passes bwd --dims 64,96,128 --seqlens 1024,4096 --nofeatures --rep 30" bash $C/ab.sh
