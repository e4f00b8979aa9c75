# Session 25 call 7 (H100): the final build: the KV-cache suite (with the HF greedy-decoding test at
# head dims 64 / 96 / 256), then the 18 decode cells at head dims 128 and 256 (% of the HBM floor).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session25/scripts
CARRY=.carry SUITES="gpu_h100_kvcache:400 gpu_h100_edge:200" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache.log 2>/dev/null
grep -E "^(FAILED|ERROR)|greedy tokens|hf_llama" $OUT/gpu_h100_kvcache.log | head -20
echo "suites done at $SECONDS s"
mkdir -p /tmp/s25/fin && tar xzf .carry/pred_attention_bundle.tar.gz -C /tmp/s25/fin
PYTHONPATH=/tmp/s25/fin/bundle/runfiles/_main/py timeout 200 python3 $S/decode_cells.py --tag final --dims 128,256 > $OUT/decode_cells_final.log 2>&1
echo "rc=$? at $SECONDS s"; cat $OUT/decode_cells_final.log
