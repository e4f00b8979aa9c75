#!/bin/bash
# Session 6, call 5: the sm90a d256 backward's 8-warp shape (B, this build) against the 4-warp one
# (A, call 4's build), interleaved A B A B in one call; then the backward suite and the four
# sanitizers above head dim 128 on B.
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
for b in a wide; do mkdir -p /tmp/$b && tar xzf $C/${b}_attention_bundle.tar.gz -C /tmp/$b; done
B="--grid=paper --dtypes=bf16 --head_dims=192,256 --causal=both --seqlens=1024,4096,16384 --mode=bwd --backends=flashcore,cudnn --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --time_budget_s=40"
for r in 1 2; do for b in a wide; do
  (cd /tmp/$b && timeout 60 python3 bundle/run.py -- $B --out_dir=/tmp/ab_${b}_$r) > $OUT/ab_${b}_$r.log 2>&1
  echo "== $b round $r rc=$?"; grep "^\[" $OUT/ab_${b}_$r.log | cut -c1-110
done; done
SUITES="bwd" TMO=170 bash $C/suites.sh
echo "== sanitizers above head dim 128"
R=/tmp/suites/bundle/runfiles
mkdir -p /tmp/san && PYTHONPATH=$R/_main/py:$R/_main/tests OUT=/tmp/san timeout ${SAN_T:-300} python3 $C/san_wide.py $R > $OUT/san_wide.txt 2>&1; echo "rc=$?"; tail -8 $OUT/san_wide.txt | cut -c1-600
tar czf $OUT/san_logs.tgz -C /tmp/san . 2>/dev/null
