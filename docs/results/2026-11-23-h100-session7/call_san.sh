#!/bin/bash
# Session 7, last call (H100): the four sanitizers over the 20 sm90a forward instantiations of
# main fd580f6 (every head dim; the packed-batch tile order changed all of them), in parallel,
# each bounded; logs written as they run.
C=$(cd "$(dirname "$0")" && pwd)
echo "main $(cat $C/COMMIT)"
W=/tmp/san; rm -rf $W; mkdir -p $W; tar xzf $C/gpu_h100_bundle.tar.gz -C $W
R=$W/bundle/runfiles
FLASHCORE_SANITIZER_TIMEOUT_S=${TMO:-280} PYTHONPATH=$R/_main/py:$R/_main/tests timeout $((${TMO:-280} + 20)) \
  python3 $C/san_fwd90.py $R 2>&1 | tail -30
ls -la $OUT
