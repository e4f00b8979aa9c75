#!/bin/bash
# s13 call 5: the persistent grid only where it paid (non-causal, not deterministic, head dim >= 96).
# Suites bwd / features, the sink subset of features twice more (dsink's known seed sensitivity),
# then A/B rows / pol kernel-only (bwd, deterministic too).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280" bash $C/suites.sh
R=/tmp/s/bundle/runfiles
for i in 1 2; do
  (cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu_features_test.py -k sink > $OUT/sink_$i.log 2>&1)
  echo "sink run $i: $(grep -E '[0-9]+ (passed|failed)' $OUT/sink_$i.log | tail -1)"; grep -E "^E .*AssertionError" $OUT/sink_$i.log | cut -c1-200
done
OUT=$OUT VARIANTS="rows pol" REPS=2 AB_ARGS="--passes bwd --dims 64,96,128,256 --seqlens 1024,4096,16384 --nofeatures --rep 20 --det" bash $C/ab.sh
