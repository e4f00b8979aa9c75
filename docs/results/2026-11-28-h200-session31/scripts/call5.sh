# Session 31 call 5 (H200): issue 16's decode table on the final build (HEAD = 1d43a34, the
# one-round-trip combine), every backend in one process (tools/bench/decode.py), twice; then the
# contiguous B1 rows with forced split counts around the heuristic's 16 / 4.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/fc && tar xzf .carry_s31/gpu_h200_bundle.tar.gz -C /tmp/fc
P=/tmp/fc/bundle/runfiles/_main/py
for r in 1 2; do
  PYTHONPATH=$P timeout 200 python3 tools/bench/decode.py --sweep_splits "" --no_prefill --out_dir /tmp/dt$r 2>&1 | grep -v Warning > $OUT/call5_decode_table_$r.log
  cp /tmp/dt$r/decode.json $OUT/call5_decode_$r.json
  head -8 $OUT/call5_decode_table_$r.log
  echo "run $r done at $SECONDS s"
done
PYTHONPATH=$P timeout 200 python3 tools/bench/decode.py --sweep_splits "3,4,6,8,12,16,20,24,32,33" --no_prefill --out_dir /tmp/dts 2>&1 | grep -v Warning > $OUT/call5_decode_sweep.log
grep -i "split\|B1 " $OUT/call5_decode_sweep.log | head -30
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
echo "done at $SECONDS s"
