# Session 28 call 9 (H100 asked for): the review mends' build -- the KV-cache suite with its two new
# tests (the TMA walk runs where it fits, found by the kernel's kTma template argument in the
# profiler; the address-order walk past its head blocks at kernel head dims 64 and 256).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
CARRY=.carry_s28d/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache.log
grep -E "tma_walk|other_kernel_head_dims" /tmp/gpu_suites/out_gpu_${KIND}_kvcache/tests/gpu_${KIND}_kvcache/test.log | head -12
