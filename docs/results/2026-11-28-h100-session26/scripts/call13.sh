# Session 26 call 13 (H100): the KV-cache suite with the seeded random-configuration fuzzer (160
# cases), on the final kernels.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:500" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -5
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache.log
grep -hE "^(FAILED|ERROR)|^E .*seed" $OUT/gpu_h100_kvcache.log | head -30
echo "done at $SECONDS s"
