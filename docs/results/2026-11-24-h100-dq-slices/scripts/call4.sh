#!/bin/bash
# s14 call 4: v3 (v2 with one dQ barrier pair per slice, fixing d96): A/B main / v1 / v3 (bwd + det,
# d64/96/128), the bwd + features suites, racecheck + memcheck of san_persist.py / san_96.py.
C=$PWD/.carry_s14
OUT=$OUT VARIANTS="main v1 v3" REPS=2 AB_ARGS="--passes bwd --nofeatures --dims 64,96,128 --rep 25 --det" bash $C/ab.sh
OUT=$OUT SUITES="gpu_h100_bwd:200 gpu_h100_features:200" bash $C/suites.sh
R=/tmp/v3/bundle/runfiles
for t in racecheck memcheck; do for f in san_persist san_96; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/$f.py > $OUT/${f}_$t.log 2>&1
  echo "$f $t rc=$?: $(tail -1 $OUT/${f}_$t.log)"
done; done
