# Session 26 call 2 (H100): call 1's suites again (call 1's stopped at import: kvcache_case.py still
# called kvcache._device_arch, renamed in the same change, on a GPU only).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:450 gpu_h100_paged_forward:240" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
for s in gpu_h100_kvcache gpu_h100_paged_forward; do cp /tmp/suites/${s}_test.log $OUT/$s.log 2>/dev/null; done
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -20
grep -hE "passed|failed" $OUT/*.log | tail -3
echo "suites done at $SECONDS s"
