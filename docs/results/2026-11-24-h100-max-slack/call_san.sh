#!/usr/bin/env bash
C=$PWD/.carry_s10
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
for tool in ${TOOLS:-racecheck synccheck}; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout ${T:-250} /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_slack.py > $OUT/san_$tool.log 2>&1 &
done
wait
for tool in ${TOOLS:-racecheck synccheck}; do echo "$tool:"; tail -3 $OUT/san_$tool.log; done
