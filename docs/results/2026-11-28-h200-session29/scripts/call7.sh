# Session 29 call 7 (H200): the review mends (the order rule's cut at 4.4 TB/s; GPU tests for the
# address-order walk at d64 pages of 32 and 64 and for the bandwidth torch reports): the KV-cache
# suite, and the new tests' lines.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
CARRY=.carry_s29/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/call7_${KIND}_gpu_kvcache.log
grep -E "other_kernel_head_dims|reports_its_hbm" /tmp/gpu_suites/out_gpu_${KIND}_kvcache/tests/gpu_${KIND}_kvcache/test.log | head -12
echo "done at $SECONDS s"
