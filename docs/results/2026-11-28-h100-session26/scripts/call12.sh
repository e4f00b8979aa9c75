# Session 26 call 12 (H100): the final build's KV-cache and paged-forward suites (the unsplit
# two-stage decode ring is new kernel code), in parallel.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:450 gpu_h100_paged_forward:300 gpu_h100_hf:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -5
for s in gpu_h100_kvcache gpu_h100_paged_forward gpu_h100_hf; do cp /tmp/suites/${s}_test.log $OUT/$s.log 2>/dev/null; done
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -20
echo "suites done at $SECONDS s"
