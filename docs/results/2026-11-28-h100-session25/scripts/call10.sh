# Session 25 call 10 (H100): the final tree's suites outside the KV cache (the bindings' decode
# entry points changed; forward / backward kernels did not), in parallel.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100:280 gpu_h100_hf:200 gpu_h100_kvcache:280 gpu_h100_paged_forward:200" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
grep -hE "^(FAILED|ERROR)" /tmp/suites/*_test.log | head -10
echo "done at $SECONDS s"
