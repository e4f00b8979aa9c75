# Session 24 (H100): issue 16's decode table on the final build (decode kernels unchanged since
# session 21), twice in consecutive processes, then the chunked-prefill rows once.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
W=/tmp/decw; mkdir -p $W && tar xzf .carry/head_attention_bundle.tar.gz -C $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader
for r in 1 2; do
  (cd $W && timeout 120 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" --out_dir $W/tab$r) > $OUT/decode_table_$r.log 2>&1
  echo "table $r rc=$? at $SECONDS s"; grep "^B" $OUT/decode_table_$r.log
done
(cd $W && timeout 150 python3 bundle/run.py -- --mode=decode --prefill_only --sweep_splits "" --out_dir $W/pre) > $OUT/decode_prefill.log 2>&1
echo "prefill rc=$? at $SECONDS s"; grep -E "^B|prefill|TFLOP" $OUT/decode_prefill.log | head -20
