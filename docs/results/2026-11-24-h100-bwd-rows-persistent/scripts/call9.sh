#!/bin/bash
# s13 call 9: the dsink failures, same seeds, on the session-12 test bundle (old row kernels) and
# this session's (new row kernels + staged epilogue).
C=$PWD/.carry_s13
for b in old new; do
  mkdir -p /tmp/$b && tar xzf $C/${b}_gpu_h100_bundle.tar.gz -C /tmp/$b
  R=/tmp/$b/bundle/runfiles
  echo "== $b"
  (cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 120 python3 $C/repro_dsink.py 2>&1 | grep -v Warn | tail -5)
done
