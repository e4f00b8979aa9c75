#!/bin/bash
# Session 8, call F (H100): the launch order on the mma.sync backward (branch bwdorder80) against
# main before it (`adc69d7`: that backward group-major): tools/bench/bwd_order.py on the sm80 code
# (FLASHCORE_FORCE_ARCH=sm80_ptx, d128 and d64) and on sm90a's d256 (mma.sync), new and main in
# alternating processes (new, main, new); then //tests:gpu_h100_bwd, _features and _kvcache on the
# new build (= final main: decode4 merged).
C=$(cd "$(dirname "$0")" && pwd)
echo "branch $(cat $C/COMMIT)"
W=/tmp/vf; rm -rf $W; mkdir -p $W/new $W/main $W/s
tar xzf $C/new_attention_bundle.tar.gz -C $W/new; tar xzf $C/main_attention_bundle.tar.gz -C $W/main
tar xzf $C/new_gpu_h100_bundle.tar.gz -C $W/s
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for rb in "1 new" "1 main" "2 new"; do
  set -- $rb; r=$1; b=$2
  R=$W/$b/bundle/runfiles
  FLASHCORE_FORCE_ARCH=sm80_ptx PYTHONPATH=$R/_main:$R/_main/py:$R timeout 80 python3 $C/bwd_order.py \
    --label "r$r $b sm80_ptx" --head_dims 128,64 --rep 40 >> $OUT/bwd_order_sm80.log 2>&1
  echo "r$r $b sm80_ptx rc=$? $SECONDS s"
  [ $r = 2 ] && continue
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 50 python3 $C/bwd_order.py \
    --label "r$r $b sm90a" --head_dims 256 --rep 40 >> $OUT/bwd_order_sm80.log 2>&1
  echo "r$r $b d256 rc=$? $SECONDS s"
done
cd $W/s
for s in bwd features kvcache; do
  t=gpu_h100_$s; lim=120; [ $s = features ] && lim=200
  T0=$SECONDS
  timeout $((lim+5)) python3 bundle/run.py --only $t --timeout $lim --out $W/res_$s > $W/$t.txt 2>&1
  echo "$t rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$s/tests/$t/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED" $W/res_$s/tests/$t/test.log 2>/dev/null | head -5
done
tar czf $OUT/suite_logs.tgz -C $W $(cd $W && ls -d res_*/tests/*/test.log)
