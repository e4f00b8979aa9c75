# Session 58: after the three calls that bring FlashAttention-4's big wheel onto the machine
# (session 56's call_fa4_copy.sh, PART p1 / p2 / p3), ncu of the d128 bf16 forward, flashcore (the
# landed kernels, `head`) beside FA4 4.0.0b36 on the same tensors (ncu_fwd_pair.py): full S 16384
# (the paper grid's lowest d128 full row against FA4) and Llama 3 8B's layer (32 / 8 heads, causal,
# S 8192 B2). ncu with --clock-control none (METHOD.md), every section of --set full.
set -u
export CARRY=.carry_s58 DC_DEADLINE=560
. tools/bench/device_call.sh
C=$PWD/.carry_fa4
big=$(cat "$C/fa4/b/BIG_WHEEL_NAME")
cat /root/keep/cu13.part.* "$C"/fa4/b/cu13.part.* > "/tmp/$big" && sha256sum "/tmp/$big"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 "/tmp/$big" "$C"/fa4/b/*.whl || echo "FA4 install failed"
dc_unpack head
export PYTHONPATH=$DC_AB/head/py:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
S=docs/results/2026-12-01-h200-session58/scripts/ncu_fwd_pair.py
timeout 150 python3 $S --rows ${ROWS:-d128_full_s16k,llama3_causal_s8k} > $OUT/times.txt 2>&1; echo "timing rc=$? at $(dc_elapsed) s"; cat $OUT/times.txt | grep -v Warn | tail -8
timeout 330 ncu --clock-control none --profile-from-start off --set full --import-source no -o $OUT/fwd_pair \
  python3 $S --rows ${ROWS:-d128_full_s16k,llama3_causal_s8k} > $OUT/ncu.log 2>&1
echo "ncu rc=$? at $(dc_elapsed) s"; tail -5 $OUT/ncu.log
ncu --import $OUT/fwd_pair.ncu-rep --page details --csv > $OUT/details.csv 2>/dev/null; wc -c $OUT/details.csv
ncu --import $OUT/fwd_pair.ncu-rep --page raw --csv > $OUT/raw.csv 2>/dev/null; wc -c $OUT/raw.csv
ncu --import $OUT/fwd_pair.ncu-rep --page source --csv --print-source sass > $OUT/source.csv 2>/dev/null; wc -c $OUT/source.csv
ls -la $OUT
dc_finish
