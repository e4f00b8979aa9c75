# Session 26 call 14 (H100): split counts at head dim 64 (Llama-3.2-1B's: Hq32 Hk8 d64): the
# heuristic (one CTA an SM), two CTAs an SM, on issue 16's rows that split, every layout,
# interleaved per row in one process, three rounds (decode.py --split_ab).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
mkdir -p /tmp/fc && tar xJf .carry_fa4/flashcore_py.tar.xz -C /tmp/fc
PYTHONPATH=/tmp/fc/bundle/runfiles/_main/py timeout 400 python3 tools/bench/decode.py --split_ab --head_dim 64 --ab_rounds 3 --out_dir $OUT 2>&1 | grep -v Warning | tee $OUT/split_ab_d64.log
echo "done at $SECONDS s"
