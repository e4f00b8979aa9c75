# Session 54 call 2: kDecodeSortHeadBlocks 12 (HEAD) against 8 / 6 / 4 / 3 on an experiment build
# that reads it from FLASHCORE_EXP_SORT_HEAD_BLOCKS (exp-headblocks branch), alternating processes.
set -e
S=docs/results/2026-11-30-h200-session54/scripts
mkdir -p /tmp/head /tmp/exp
tar xJf .carry_s54/head.tar.xz -C /tmp/head; tar xJf .carry_s54/exp_head.tar.xz -C /tmp/exp
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for r in 1 2; do
  PYTHONPATH=/tmp/head/py python3 $S/paged_cells.py head_r$r 128,64 2
  for hb in 12 8 6 4 3; do
    FLASHCORE_EXP_SORT_HEAD_BLOCKS=$hb PYTHONPATH=/tmp/exp/py python3 $S/paged_cells.py hb${hb}_r$r 128,64 2
  done
done 2>&1 | tee $OUT/ab.txt
