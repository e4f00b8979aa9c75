#!/bin/bash
# s11 call 5: the 192 instantiation / split-by-product layout: oracle subsets, features pairs, A/B w2 vs w3,
# then racecheck + memcheck of san_wide.py.
C=$PWD/.carry_s11
mkdir -p /tmp/g && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 150 python3 -m pytest -q -x -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "136 or 192 or 200 or 256" > $OUT/bwd_wide.log 2>&1)
echo "bwd -k wide rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd_wide.log | tail -1)"
grep -E "^FAILED|Error" $OUT/bwd_wide.log | head -8 | cut -c1-400
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 100 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "192 or 256" > $OUT/feat_wide.log 2>&1)
echo "features -k 192/256 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/feat_wide.log | tail -1)"
grep -E "^FAILED" $OUT/feat_wide.log | head -8 | cut -c1-400
OUT=$OUT VARIANTS="w2 w3" REPS=2 AB_ARGS="--passes bwd --dims 192,256,200 --nofeatures" bash $C/ab.sh | tail -20
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_wide.py > $OUT/san_$tool.log 2>&1 &
done
wait
for tool in racecheck memcheck; do echo "$tool:"; tail -3 $OUT/san_$tool.log; done
