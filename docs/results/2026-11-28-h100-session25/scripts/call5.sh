# Session 25 call 5 (H100): KV-cache head dims below the decode kernels' (predicated): the KV-cache
# and paged-forward suites on the new build, then decode timings at head dims 64..128 (% of the
# HBM floor at the call's head dim).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session25/scripts
CARRY=.carry SUITES="gpu_h100_kvcache:300 gpu_h100_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
for su in gpu_h100_kvcache gpu_h100_paged_forward; do
  cp /tmp/suites/${su}_test.log $OUT/$su.log 2>/dev/null || cp /tmp/suites/$su.log $OUT/$su.log
  grep -E "^(FAILED|ERROR)" $OUT/$su.log | head -20
done
echo "suites done at $SECONDS s"
mkdir -p /tmp/s25/pred && tar xzf .carry/pred_attention_bundle.tar.gz -C /tmp/s25/pred
PYTHONPATH=/tmp/s25/pred/bundle/runfiles/_main/py timeout 200 python3 $S/decode_cells.py --tag pred --dims 64,80,96,112,128 --rows 1,3,4 > $OUT/decode_dims.log 2>&1
echo "rc=$? at $SECONDS s"; cat $OUT/decode_dims.log
