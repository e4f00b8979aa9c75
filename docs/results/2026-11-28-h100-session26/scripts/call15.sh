# Session 26 call 15 (H100): the review mends (test-side; kernels byte-identical): the KV-cache and paged-forward suites (with the fuzzer, 160
# cases), on the final kernels.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:500 gpu_h100_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -5
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache.log
grep -hE "^(FAILED|ERROR)|^E .*seed" $OUT/gpu_h100_kvcache.log | head -30
echo "done at $SECONDS s"
cp /tmp/suites/gpu_h100_paged_forward_test.log $OUT/gpu_h100_paged_forward.log
