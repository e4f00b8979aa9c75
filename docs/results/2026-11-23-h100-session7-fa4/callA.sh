#!/bin/bash
# Session 7, call A (H100): stage FA4's first half in /root/keep for call B; the suites the
# hd96 merge touches on main's merged bundle (forward, features, fuzz).
C=$(cd "$(dirname "$0")" && pwd)
mkdir -p /root/keep && cp .carry_fa4/fa4/a/* /root/keep/ && ls -la /root/keep | tail -2
echo "main $(cat $C/COMMIT)"
W=/tmp/m3; rm -rf $W; mkdir -p $W; tar xzf $C/gpu_h100_bundle.tar.gz -C $W; cd $W
for s in plain features fuzz; do
  t=gpu_h100_$s; [ $s = plain ] && t=gpu_h100
  T0=$SECONDS
  timeout 150 python3 bundle/run.py --only $t --timeout 145 --out $W/res_$s > $W/$t.txt 2>&1
  echo "$t rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$s/tests/$t/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED|fuzz:" $W/res_$s/tests/$t/test.log 2>/dev/null | head -5
done
tar czf $OUT/suite_logs.tgz -C $W $(cd $W && ls -d res_*/tests/*/test.log)
