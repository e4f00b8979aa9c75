#!/bin/bash
# Session 16 call 12: kDecodeSortHeadBlocks 8 (v1, call 11's build) vs 12 (v12), the B1 rows at
# page 16, alternating processes (3 each); and the graph timeline of v12.
C=$PWD/.carry_s16
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
for v in v1 v12; do mkdir -p /tmp/$v && tar xzf $C/${v}_attention_bundle.tar.gz -C /tmp/$v; done
for r in 1 2 3; do for v in v1 v12; do
  R=/tmp/$v/bundle/runfiles
  echo "== $v round $r"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/page_order_ab.py 1 --diag 2>&1 | grep "B1 " | grep "contig\|random" | tee -a $OUT/heads_ab.log
done; done
R=/tmp/v12/bundle/runfiles; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/prof_graph.py 2>&1 | grep "^B" | tee $OUT/prof_graph_v12.log
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
