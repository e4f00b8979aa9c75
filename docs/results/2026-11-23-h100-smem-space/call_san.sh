#!/usr/bin/env bash
C=$PWD/.carry_f2
mkdir -p /tmp/s && tar xzf $C/f_gpu_h100_bundle.tar.gz -C /tmp/s
(cd /tmp/s && timeout 200 python3 bundle/run.py --only gpu_h100 --timeout 190 --out /tmp/s/o1) > $OUT/gpu_h100.log 2>&1; tail -2 $OUT/gpu_h100.log
(cd /tmp/s && timeout 200 python3 bundle/run.py --only gpu_h100_features --timeout 190 --out /tmp/s/o2) > $OUT/gpu_h100_features.log 2>&1; tail -2 $OUT/gpu_h100_features.log
grep -h "passed\|failed" /tmp/s/o1/tests/gpu_h100/test.log /tmp/s/o2/tests/gpu_h100_features/test.log | tail -2
grep -h "long_rows" /tmp/s/o1/tests/gpu_h100/test.log /tmp/s/o2/tests/gpu_h100_features/test.log | head -3
R=/tmp/s/bundle/runfiles
for tool in racecheck synccheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 170 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_case.py > $OUT/san_$tool.log 2>&1
  echo "$tool rc=$?"; tail -2 $OUT/san_$tool.log
done
