# Session 25 call 1 (H100): the decode step's timeline and fixed cost on HEAD's build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
W=/tmp/s25; mkdir -p $W && tar xzf .carry/head_attention_bundle.tar.gz -C $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader
PYTHONPATH=$W/bundle/runfiles/_main/py timeout 400 python3 docs/results/2026-11-28-h100-session25/scripts/decode_timeline.py --out $OUT/traces > $OUT/decode_timeline.log 2>&1
echo "rc=$?"; cat $OUT/decode_timeline.log | tail -80
