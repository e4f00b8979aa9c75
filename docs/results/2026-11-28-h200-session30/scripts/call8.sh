# Session 30 call 8 (H200): the KV-cache suite on the final build (190a4d5): chunked prefill runs
# the forward kernel, whose narrow P V and map promotion changed this session.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry_s30/h200 SUITES="gpu_h200_kvcache:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
