# Session 28 call 6: the KV-cache and paged-forward suites on the committed build (the kernel's
# host side moved to decode_launch.cuh, boxes chosen by the lengths alone).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
CARRY=.carry_s28/$KIND SUITES="gpu_${KIND}_kvcache:300 gpu_${KIND}_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache.log
cp /tmp/suites/gpu_${KIND}_paged_forward_test.log $OUT/gpu_${KIND}_paged_forward.log
