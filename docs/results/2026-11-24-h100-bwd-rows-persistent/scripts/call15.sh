#!/bin/bash
# s13 call 15: p_sink per row in shared memory (with the lse rows) instead of per fragment entry.
# The failing seeds, the sink cases 2x, sanitizers on the sink case; A/B final / sinkd / sinkd2 (3 reps).
C=$PWD/.carry_s13
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 120 python3 $C/repro_dsink.py 2>&1 | grep -v Warn | tail -4)
for i in 1 2; do
  (cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu_features_test.py -k "sink or determin" > /tmp/sink_$i.log 2>&1)
  echo "sink/deterministic run $i: $(grep -E '[0-9]+ (passed|failed)' /tmp/sink_$i.log | tail -1)"; grep -E "^E .*AssertionError" /tmp/sink_$i.log | cut -c1-200
done
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_sink.py > /tmp/san_sink_$tool.log 2>&1
  echo "san_sink $tool: $(tail -1 /tmp/san_sink_$tool.log)"
done
OUT=$OUT VARIANTS="final sinkd2" REPS=3 AB_ARGS="--passes bwd --dims 64,128,256 --seqlens 1024,4096 --sink --rep 20" bash $C/ab.sh
