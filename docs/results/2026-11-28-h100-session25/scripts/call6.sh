# Session 25 call 6 (H100): KV cache at head dim 256 (its own decode kernels) and 136..248
# (predicated on them): the KV-cache and paged-forward suites, then decode timings at head dims
# 96..256 (% of the HBM floor at the call's head dim), contiguous and paged.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session25/scripts
CARRY=.carry SUITES="gpu_h100_kvcache:400 gpu_h100_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
for su in gpu_h100_kvcache gpu_h100_paged_forward; do
  cp /tmp/suites/${su}_test.log $OUT/$su.log 2>/dev/null || cp /tmp/suites/$su.log $OUT/$su.log
  grep -E "^(FAILED|ERROR)" $OUT/$su.log | head -20
done
echo "suites done at $SECONDS s"
mkdir -p /tmp/s25/pred && tar xzf .carry/pred_attention_bundle.tar.gz -C /tmp/s25/pred
PYTHONPATH=/tmp/s25/pred/bundle/runfiles/_main/py timeout 200 python3 $S/decode_cells.py --tag d256 --dims 128,192,200,256 --rows 0,1,4 > $OUT/decode_dims.log 2>&1
echo "rc=$? at $SECONDS s"; cat $OUT/decode_dims.log
