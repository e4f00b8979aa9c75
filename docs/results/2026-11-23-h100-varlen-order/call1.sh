#!/bin/bash
# Session 7, call 1 (H100): decode3's paged A/B + KV-cache suite (helper 17's script), then
# varsched: the features suite with the new varlen tile-order tests, and the varlen timing on
# main's build and varsched's, back to back.
C=$(cd "$(dirname "$0")" && pwd)
D=$C/../.carry_dec3
MAIN_BUNDLE=$C/main_attention_bundle.tar.gz OUT=$OUT timeout 290 bash $D/decode_ab_h100.sh > $OUT/dec3_console.txt 2>&1
echo "decode A/B rc=$?"; tail -5 $OUT/dec3_console.txt
W=/tmp/vs; rm -rf $W; mkdir -p $W/main $W/new $W/suite
tar xzf $C/main_attention_bundle.tar.gz -C $W/main; tar xzf $C/vs_attention_bundle.tar.gz -C $W/new
tar xzf $C/vs_gpu_h100_bundle.tar.gz -C $W/suite
for b in main new main new; do
  echo "== varlen order, $b build $(date +%T)"
  PYTHONPATH=$W/$b/bundle/runfiles/_main/py timeout 60 python3 $C/varlen_order.py --rounds 3 2>&1 | tee -a $OUT/varlen_order.txt | tail -3
done
cd $W/suite
T0=$SECONDS
timeout 200 python3 bundle/run.py --only gpu_h100_features --timeout 190 --out $W/res > $W/features.txt 2>&1
echo "features rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $W/res/tests/gpu_h100_features/test.log | tail -1)"
cp $W/res/tests/gpu_h100_features/test.log $OUT/gpu_h100_features.log
grep -E "FAILED|tile_orders" $OUT/gpu_h100_features.log | head -20
