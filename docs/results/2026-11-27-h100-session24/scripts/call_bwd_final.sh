# Session 24 (H100): the backward suite on the final kernels (the bwd suite's other runs this
# session were on the two dropped variants' builds).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_bwd:500" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
cp /tmp/suites/gpu_h100_bwd_test.log $OUT/ 2>/dev/null
echo "done at $SECONDS s"
