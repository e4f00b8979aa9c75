#!/bin/bash
# s13 call 16: the sink's gradient as a template variant of the sm90a backward kernels (kSinkGrad),
# chosen at launch. The failing seeds; suites bwd / features (sink cases included); A/B final / sinkd3.
C=$PWD/.carry_s13
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 120 python3 $C/repro_dsink.py 2>&1 | grep -v Warn | tail -4)
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280 gpu_h100_edge:200" bash $C/suites.sh
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck python3 $C/san_sink.py > /tmp/san_sink.log 2>&1
echo "san_sink racecheck: $(tail -1 /tmp/san_sink.log)"
OUT=$OUT VARIANTS="final sinkd3" REPS=3 AB_ARGS="--passes bwd --dims 64,128,256 --seqlens 1024,4096 --sink --rep 20" bash $C/ab.sh
