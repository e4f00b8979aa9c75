# Session 26 call 7 (H100): the suites on the tree with the torch.compile custom ops and the paged
# varlen cases at head dims 80 / 256 (kvcache, paged forward, the attention suite and the Hugging
# Face one, whose paths api.py / kvcache.py touch), in parallel.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:450 gpu_h100_paged_forward:300 gpu_h100:420 gpu_h100_hf:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
for s in gpu_h100_kvcache gpu_h100_paged_forward gpu_h100 gpu_h100_hf; do cp /tmp/suites/${s}_test.log $OUT/$s.log 2>/dev/null; done
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -20
echo "suites done at $SECONDS s"
