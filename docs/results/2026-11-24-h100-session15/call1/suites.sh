#!/bin/bash
# Runs the named suites of the GPU bundle ($SUITES = "name:timeout ..."), in parallel (one GPU:
# correctness suites, nothing timed), and prints each one's pytest tail.
C=$PWD/.carry_s15
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
for st in $SUITES; do
  su=${st%%:*}; to=${st##*:}
  ( (cd /tmp/s && timeout $((to + 10)) python3 bundle/run.py --only $su --timeout $to --out /tmp/s/out_$su) > $OUT/$su.log 2>&1
    echo "== $su rc=$? $(grep -hoE '[0-9]+ (passed|failed)[^=]*' /tmp/s/out_$su/tests/$su/test.log 2>/dev/null | tail -1)" ) &
done
wait
for st in $SUITES; do su=${st%%:*}; cp /tmp/s/out_$su/tests/$su/test.log $OUT/${su}_test.log 2>/dev/null; grep -hE "^FAILED" $OUT/${su}_test.log 2>/dev/null | head -5 | cut -c1-300; done
