#!/usr/bin/env bash
# Runs GPU suites ($SUITES, "name:timeout") of the bundle .carry_s10/${V}_gpu_h100_bundle.tar.gz.
C=$PWD/.carry_s10
mkdir -p /tmp/s; tar xzf $C/${V:-g}_gpu_h100_bundle.tar.gz -C /tmp/s
nvidia-smi --query-gpu=name --format=csv,noheader
for st in $SUITES; do
  su=${st%%:*}; to=${st##*:}
  (cd /tmp/s && timeout $((to + 10)) python3 bundle/run.py --only $su --timeout $to --out /tmp/s/out_$su) > $OUT/$su.log 2>&1
  echo "== $su rc=$?"; tail -4 $OUT/$su.log
done
