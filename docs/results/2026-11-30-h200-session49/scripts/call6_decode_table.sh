# Call 6 (session 49): issue 16's decode table on HEAD's kernels (unchanged since session 31, which
# read 11/18 cells >= 90% on another H200), every backend in one process (tools/bench/decode.py),
# twice, on this session's machine.
set -u
OUT=${OUT:?}
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/fc && tar xzf .carry_s49/bundle/gpu_h200_bundle.tar.gz -C /tmp/fc
P=/tmp/fc/bundle/runfiles/_main/py
for r in 1 2; do
  PYTHONPATH=$P timeout 170 python3 tools/bench/decode.py --sweep_splits "" --no_prefill --out_dir /tmp/dt$r 2>&1 | grep -v Warning > $OUT/decode_table_$r.log
  cp /tmp/dt$r/decode.json $OUT/decode_$r.json 2>/dev/null
  cat $OUT/decode_table_$r.log | head -40
  echo "run $r done at $SECONDS s"
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
