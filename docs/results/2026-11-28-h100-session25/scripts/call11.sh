# Session 25 call 11 (H100): the decode backend table at head dim 256 (torch flash, cuDNN, flashcore
# contiguous / page 16 / page 256), tools/bench/decode.py --head_dim 256 on the final build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
W=/tmp/s25f; mkdir -p $W && tar xzf .carry/final_attention_bundle.tar.gz -C $W
(cd $W && timeout 150 python3 bundle/run.py -- --mode=decode --head_dim 256 --no_prefill --sweep_splits "" --out_dir $W/tab) > $OUT/decode_table_d256.log 2>&1
echo "rc=$? at $SECONDS s"; grep -E "^B|floor" $OUT/decode_table_d256.log | head -20
cp $W/tab/decode.json $OUT/decode_d256.json 2>/dev/null
