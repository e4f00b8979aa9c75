#!/bin/bash
# s13 call 14: the sink's gradient from the kernels' fp32 P and dP (sink_partial). The seeds that
# failed (repro_dsink.py), the features suite's sink cases 3x (fresh seeds), bwd + features suites,
# sanitizers on a sink case, then the cost: A/B final / sinkd on the sink rows (S4k causal).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 120 python3 $C/repro_dsink.py 2>&1 | grep -v Warn | tail -5)
for i in 1 2 3; do
  (cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu_features_test.py -k sink > $OUT/sink_$i.log 2>&1)
  echo "sink run $i: $(grep -E '[0-9]+ (passed|failed)' $OUT/sink_$i.log | tail -1)"; grep -E "^E .*AssertionError" $OUT/sink_$i.log | cut -c1-200
done
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_sink.py > $OUT/san_sink_$tool.log 2>&1
  echo "san_sink $tool: $(tail -1 $OUT/san_sink_$tool.log)"
done
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280 gpu_h100_hf:250" bash $C/suites.sh
OUT=$OUT VARIANTS="final sinkd" REPS=2 AB_ARGS="--passes fwd,bwd --dims 64,128 --seqlens 4096 --sink --rep 20" bash $C/ab.sh
