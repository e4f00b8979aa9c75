# Session 58: after the three calls that bring FA4's wheel (session 56's call_fa4_copy.sh), the
# plain-copy build (`plain`) beside FlashAttention-4 4.0.0b36, forward kernel-only in one process
# (fa4_rows.py).
set -u
export CARRY=.carry_s58 DC_DEADLINE=560
. tools/bench/device_call.sh
C=$PWD/.carry_fa4
big=$(cat "$C/fa4/b/BIG_WHEEL_NAME")
cat /root/keep/cu13.part.* "$C"/fa4/b/cu13.part.* > "/tmp/$big"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 "/tmp/$big" "$C"/fa4/b/*.whl || echo "FA4 install failed"
dc_unpack plain
export PYTHONPATH=$DC_AB/plain/py:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4cache
timeout 420 python3 docs/results/2026-12-01-h200-session58/scripts/fa4_rows.py --rounds ${ROUNDS:-2} > $OUT/ab.txt 2> $OUT/err.txt
echo "rc=$? at $(dc_elapsed) s"; grep -v Warn $OUT/err.txt | tail -3
dc_table fa4 fc
dc_finish
