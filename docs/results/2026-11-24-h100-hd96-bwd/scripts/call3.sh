#!/bin/bash
# s12 call 3: d96 backward with dQ split by keys (v5) -- oracle subsets (bwd -k 96/72/80 incl.
# deterministic and the fallback, features -k 96/72/80) with racecheck / memcheck of san_96.py
# alongside; then A/B v0 (committed b5f3b64: dQ split 64 + 32 columns) vs v5, kernel-only, d64/96/128.
C=$PWD/.carry_s12
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/g && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_96.py > $OUT/san_$tool.log 2>&1 &
done
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 240 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "96 or 72 or 80 or fallback" > $OUT/bwd_96.log 2>&1)
echo "bwd -k 96 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd_96.log | tail -1)"
grep -E "^FAILED|Error" $OUT/bwd_96.log | head -12 | cut -c1-400
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 150 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "96 or 72 or 80" > $OUT/feat_96.log 2>&1)
echo "features -k 96 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/feat_96.log | tail -1)"
grep -E "^FAILED" $OUT/feat_96.log | head -8 | cut -c1-400
wait
for tool in racecheck memcheck; do echo "$tool: $(tail -2 $OUT/san_$tool.log | tr '\n' ' ')"; done
OUT=$OUT CDIR=.carry_s12 VARIANTS="v0 v5" REPS=2 AB_ARGS="--passes bwd --dims 96,64,128 --seqlens 1024,4096,16384 --nofeatures --rep 40" bash $C/ab.sh
