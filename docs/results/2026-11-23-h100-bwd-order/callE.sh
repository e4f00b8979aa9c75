#!/bin/bash
# Session 8, call E (H100): branch bwdorder's default launch order against main (1e93dd2):
# tools/bench/bwd_order.py, new and main in alternating processes, two rounds; then
# //tests:gpu_h100_bwd and //tests:gpu_h100_features on the new build.
C=$(cd "$(dirname "$0")" && pwd)
echo "branch $(cat $C/COMMIT)"
W=/tmp/ve; rm -rf $W; mkdir -p $W/new $W/main $W/s
tar xzf $C/bo_attention_bundle.tar.gz -C $W/new; tar xzf $C/main_attention_bundle.tar.gz -C $W/main
tar xzf $C/bo_gpu_h100_bundle.tar.gz -C $W/s
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for r in 1 2; do
  for b in new main; do
    R=$W/$b/bundle/runfiles
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 60 python3 $C/bwd_order.py --label "r$r $b" >> $OUT/bwd_order_ab.log 2>&1
    echo "r$r $b rc=$? $SECONDS s"
  done
done
cd $W/s
for s in bwd features; do
  t=gpu_h100_$s; lim=120; [ $s = features ] && lim=200
  T0=$SECONDS
  timeout $((lim+5)) python3 bundle/run.py --only $t --timeout $lim --out $W/res_$s > $W/$t.txt 2>&1
  echo "$t rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$s/tests/$t/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED" $W/res_$s/tests/$t/test.log 2>/dev/null | head -5
done
tar czf $OUT/suite_logs.tgz -C $W $(cd $W && ls -d res_*/tests/*/test.log)
