#!/bin/bash
# Session 7, call 2 (H100): every suite the merged main (varsched + decode3) touches, on its
# bundle; the decode table on its attention bundle.
C=$(cd "$(dirname "$0")" && pwd)
echo "main $(cat $C/M2_COMMIT)"
W=/tmp/m2; rm -rf $W; mkdir -p $W/a; tar xzf $C/m2_gpu_h100_bundle.tar.gz -C $W; tar xzf $C/m2_attention_bundle.tar.gz -C $W/a
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
(cd $W/a && timeout 50 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" --out_dir $W/dec) > $OUT/decode_table.log 2>&1
echo "decode rc=$?"; grep "^B" $OUT/decode_table.log
cd $W
for s in plain fuzz bwd kvcache edge hf; do
  t=gpu_h100_$s; [ $s = plain ] && t=gpu_h100
  T0=$SECONDS
  timeout 170 python3 bundle/run.py --only $t --timeout 165 --out $W/res_$s > $W/$t.txt 2>&1
  echo "$t rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$s/tests/$t/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED|Error" $W/res_$s/tests/$t/test.log 2>/dev/null | head -5
done
tar czf $OUT/suite_logs.tgz -C $W $(cd $W && ls -d res_*/tests/*/test.log)
