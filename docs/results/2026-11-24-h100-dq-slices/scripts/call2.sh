#!/bin/bash
# s14 call 2: main vs v1 A/B again (call 1's machine was throttling: SW thermal slowdown), clocks sampled.
C=$PWD/.carry_s14
nvidia-smi -q -d PERFORMANCE | grep -A6 'Reasons Counters'
nvidia-smi dmon -s pc -d 2 > $OUT/dmon.log 2>&1 &
DM=$!
OUT=$OUT VARIANTS="main v1" REPS=3 AB_ARGS="--passes bwd --nofeatures --dims 64,128,192,256 --rep 30" bash $C/ab.sh
kill $DM
nvidia-smi -q -d PERFORMANCE | grep -A6 'Reasons Counters'
awk 'NR>2 {print $5}' $OUT/dmon.log | sort -n | uniq -c | sort -k2 -n | tail -8
