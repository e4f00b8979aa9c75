# Session 24 (H100): the GPU suites not run earlier this session, on the final kernels (`4133179`:
# _C.so byte-identical to the sanitizer calls' build), in parallel.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_hf:520 gpu_h100_kvcache:520 gpu_h100_paged_forward:520 gpu_h100_edge:520 gpu_h100_fuzz:520" \
  OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -20
tar czf $OUT/suites_final_logs.tgz -C /tmp/suites .
echo "done at $SECONDS s"
