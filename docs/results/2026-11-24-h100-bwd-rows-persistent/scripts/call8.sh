#!/bin/bash
# s13 call 8: dK / dV through shared memory (16-byte row pieces). Suites bwd / features / edge,
# racecheck + memcheck of san_persist.py (d64/96/128/256 with more tiles than SMs; here one CTA
# per tile) and san_wide.py, then A/B rows / epi kernel-only (bwd, deterministic too).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
for tool in racecheck memcheck; do
  (for f in san_persist san_wide; do PYTHONPATH=$R/_main:$R/_main/py:$R timeout 250 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/$f.py > $OUT/${f}_$tool.log 2>&1; done) &
done
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280 gpu_h100_edge:200" bash $C/suites.sh
wait
for f in $OUT/san_*.log; do echo "$(basename $f): $(tail -2 $f | tr '\n' ' ' | cut -c1-150)"; done
OUT=$OUT VARIANTS="rows epi" REPS=2 AB_ARGS="--passes bwd --dims 64,96,128,256 --seqlens 1024,4096,16384 --nofeatures --rep 20 --det" bash $C/ab.sh
