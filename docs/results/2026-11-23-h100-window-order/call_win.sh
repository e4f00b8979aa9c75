#!/bin/bash
# Session 7: the window tile order (branch winpairs) against main fd580f6's build: window/causal
# timing for both builds, then the features suite's window and tile-order tests and gpu_h100.
C=$(cd "$(dirname "$0")" && pwd)
W=/tmp/win; rm -rf $W; mkdir -p $W/main $W/new $W/suite
tar xzf .carry_fa4/attention_bundle.tar.gz -C $W/main; tar xzf $C/attention_bundle.tar.gz -C $W/new
tar xzf $C/gpu_h100_bundle.tar.gz -C $W/suite
for b in main new; do
  echo "== $b"; PYTHONPATH=$W/$b/bundle/runfiles/_main/py timeout 60 python3 tools/bench/window_order.py --rounds 2 2>&1 | tail -14
done
cd $W/suite
timeout 120 python3 bundle/run.py --only gpu_h100_features --timeout 115 --out $W/rf > $W/f.txt 2>&1
echo "features rc=$?: $(grep -E '[0-9]+ (passed|failed)' $W/rf/tests/gpu_h100_features/test.log | tail -1)"
grep -E "^FAILED" $W/rf/tests/gpu_h100_features/test.log | head
timeout 90 python3 bundle/run.py --only gpu_h100 --timeout 85 --out $W/rp > $W/p.txt 2>&1
echo "gpu_h100 rc=$?: $(grep -E '[0-9]+ (passed|failed)' $W/rp/tests/gpu_h100/test.log | tail -1)"
cp $W/rf/tests/gpu_h100_features/test.log $OUT/features.log; cp $W/rp/tests/gpu_h100/test.log $OUT/gpu_h100.log
