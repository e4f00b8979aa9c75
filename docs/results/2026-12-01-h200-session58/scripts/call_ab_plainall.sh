# Session 58: the plain-call copy at every head dim (`plainall`: full-width copies at 96, 192, 256
# too; experiment build) against `plain` (dc601ae: 64 and 128 only), kernel-only forward rows of
# tools/bench/ab_kernels.py in alternating processes; then plainall beside cuDNN (cudnn_rows.py,
# issue 15's rows) and the feature suite on it.
set -u
export CARRY=.carry_s58 DC_DEADLINE=330 DC_AB_TIMEOUT=120
. tools/bench/device_call.sh
dc_unpack plain plainall
dc_ab 2 plain plainall -- --dtype bf16 --dims 96,192,256 --passes fwd --seqlens 1024,4096,16384 --nofeatures
dc_ab 1 plain plainall -- --dtype fp16 --dims 96,192,256 --passes fwd --seqlens 1024,4096 --nofeatures
dc_table plain plainall
PYTHONPATH=$DC_AB/plainall/py timeout 100 python3 docs/results/2026-12-01-h200-session58/scripts/cudnn_rows.py --rounds 2 > $OUT/cudnn.txt 2>&1
python3 tools/bench/ab_table.py $OUT/cudnn.txt cudnn fc
dc_suites "${SUITES:-gpu_h200_features:150}"
dc_finish
