#!/bin/bash
# s13 call 4: the persistent backward (one CTA per SM walking its tiles). Suites bwd / features /
# edge, racecheck + memcheck of san_persist.py, then A/B rows / pers kernel-only (bwd).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
for tool in racecheck memcheck; do
  (PYTHONPATH=$R/_main:$R/_main/py:$R timeout 250 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_persist.py > $OUT/san_persist_$tool.log 2>&1) &
done
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280 gpu_h100_edge:200" bash $C/suites.sh
wait
for f in $OUT/san_*.log; do echo "$(basename $f): $(tail -2 $f | tr '\n' ' ')"; done
OUT=$OUT VARIANTS="rows pers" REPS=2 AB_ARGS="--passes bwd --dims 64,96,128,256 --seqlens 1024,4096,16384 --nofeatures --rep 25" bash $C/ab.sh
