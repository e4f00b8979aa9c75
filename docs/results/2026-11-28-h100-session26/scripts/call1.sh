# Session 26 call 1 (H100): the KV-cache suite with the portable PTX decode library (sm80_ptx, forced:
# the Ampere / Ada decode source JIT-compiled on this Hopper) and the four-tool sanitizer case, the
# paged-forward suite (kvcache.py now routes by the forced library), in parallel; then the 18 decode
# cells at d128 on this GPU's library and on the PTX one (each its own process).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry SUITES="gpu_h100_kvcache:450 gpu_h100_paged_forward:240" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
for s in gpu_h100_kvcache gpu_h100_paged_forward; do cp /tmp/suites/${s}_test.log $OUT/$s.log 2>/dev/null; done
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -20
echo "suites done at $SECONDS s"
PY=/tmp/gpu_suites/bundle/runfiles/_main/py
CELLS=docs/results/2026-11-28-h100-session25/scripts/decode_cells.py
PYTHONPATH=$PY timeout 100 python3 $CELLS --tag native > $OUT/decode_cells_native.log 2>&1
FLASHCORE_FORCE_ARCH=sm80_ptx PYTHONPATH=$PY timeout 100 python3 $CELLS --tag sm80_ptx > $OUT/decode_cells_ptx.log 2>&1
echo "cells done at $SECONDS s"; cat $OUT/decode_cells_native.log $OUT/decode_cells_ptx.log | grep -v Warning
