# Session 35, device call 10 (H200): issue 13's mixed-length varlen bar again, with more than call 5's
# one reading: session 24's scripts/varlen_tiles.py (the packed 64-sequence batch of seeded lengths
# 100..4000 against the equal-length packed batch 4 x 4096, kernel-only, rows interleaved, median of
# 5 rounds; the mixed batch also on each sm90a forward tile, forced) on HEAD e4c304a's py tree.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p /tmp/ab/head && tar xJf .carry_s35/head.tar.xz -C /tmp/ab/head
PYTHONPATH=/tmp/ab/head/py:tools/bench timeout 400 python3 docs/results/2026-11-27-h100-session24/scripts/varlen_tiles.py \
  --rounds 5 2>&1 | tee $OUT/varlen_tiles.txt
