#!/bin/bash
# s12 call 7: the consumer index made warp-uniform (warpgroup_index: ptxas no longer serializes every
# wgmma of the d96 and d192 backward, C7520) -- oracle subsets (bwd -k 96/72/80/192/200/256 +
# fallback, features -k 96/72/80/192/256) with racecheck / memcheck of san_96.py and san_wide.py
# alongside; A/B v0 (b5f3b64) / v10 (uniform index) / v11 (v10 + 256 on the product split),
# kernel-only in alternating processes, bwd d96/192/256/128.
C=$PWD/.carry_s12
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/g && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
for tool in racecheck memcheck; do
  (for f in san_96 san_wide; do PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/$f.py > $OUT/${f}_$tool.log 2>&1; done) &
done
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 240 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "96 or 72 or 80 or 136 or 192 or 200 or 256 or fallback" > $OUT/bwd.log 2>&1)
echo "bwd -k rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd.log | tail -1)"
grep -E "^FAILED|Error" $OUT/bwd.log | head -12 | cut -c1-400
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 150 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "96 or 72 or 80 or 192 or 256" > $OUT/feat.log 2>&1)
echo "features -k rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/feat.log | tail -1)"
grep -E "^FAILED" $OUT/feat.log | head -8 | cut -c1-400
wait
for f in $OUT/san_*.log; do echo "$(basename $f): $(tail -2 $f | tr '\n' ' ')"; done
OUT=$OUT CDIR=.carry_s12 VARIANTS="v0 v10 v11" REPS=2 AB_ARGS="--passes bwd --dims 96,192,256,128 --seqlens 1024,4096,16384 --nofeatures --rep 30" bash $C/ab.sh
