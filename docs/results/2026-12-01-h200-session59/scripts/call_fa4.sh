# Session 59: FA4 installed from /root/keep (call_ab.sh and call_fa4_copy.sh put its parts there); ncu of
# the d64 bf16 forward beside FA4's (ncu_fwd_pair.py: full and causal S 16384, the paper grid's
# lowest d64 rows against FA4); then the d192 build beside FA4 and cuDNN at head dims 96, 192, 256
# and the (192, 128) pair (fa4_rows.py). BUILD: the build timed (d192); NO_NCU=1 skips the ncu step.
set -u
export CARRY=.carry_s59 DC_DEADLINE=560
. tools/bench/device_call.sh
big=$(cat /root/keep/BIG_WHEEL_NAME)
cat /root/keep/bigpart.a? > "/tmp/$big" && sha256sum "/tmp/$big"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 "/tmp/$big" /root/keep/*.whl || echo "FA4 install failed"
B=${BUILD:-d192}; dc_unpack $B
export PYTHONPATH=$DC_AB/$B/py:tools/bench:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
S=docs/results/2026-12-01-h200-session59/scripts
if [ -z "${NO_NCU:-}" ]; then
timeout 120 python3 $S/ncu_fwd_pair.py --rows ${ROWS:-d64_full_s16k,d64_causal_s16k} > $OUT/times.txt 2>&1; echo "timing rc=$? at $(dc_elapsed) s"; grep -v Warn $OUT/times.txt | tail -8
timeout 300 ncu --clock-control none --profile-from-start off --set full --import-source no -o $OUT/fwd_pair \
  python3 $S/ncu_fwd_pair.py --rows ${ROWS:-d64_full_s16k,d64_causal_s16k} > $OUT/ncu.log 2>&1
echo "ncu rc=$? at $(dc_elapsed) s"; tail -5 $OUT/ncu.log
ncu --import $OUT/fwd_pair.ncu-rep --page details --csv > $OUT/details.csv 2>/dev/null; wc -c $OUT/details.csv
ncu --import $OUT/fwd_pair.ncu-rep --page raw --csv > $OUT/raw.csv 2>/dev/null; wc -c $OUT/raw.csv
ncu --import $OUT/fwd_pair.ncu-rep --page source --csv --print-source sass > $OUT/source.csv 2>/dev/null; wc -c $OUT/source.csv
rm -f $OUT/fwd_pair.ncu-rep
fi
timeout $(( 580 - $(dc_elapsed) )) python3 $S/fa4_rows.py --rounds ${ROUNDS:-2} --dims ${DIMS:-96,192,192:128,256} > $OUT/fa4.txt 2>$OUT/fa4_err.txt
echo "fa4 rows rc=$? at $(dc_elapsed) s"; grep -v Warn $OUT/fa4_err.txt | tail -3
python3 tools/bench/ab_table.py $OUT/fa4.txt fa4 fc cudnn
dc_finish
