# Session 28 call 7 (H100 asked for): where the B1 paged cells lose on the TMA walk. The committed
# build, three rounds in one process: B1 rows at d128, pages of 16 / 256 / 65536 (one page a
# sequence at k65536: the contiguous cache's bytes through the TMA walk's 64-row boxes), physical
# pages in random order and in order.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
mkdir -p /tmp/ab/fin && tar xzf .carry_s28b/gpu_h100_bundle.tar.gz -C /tmp/ab/fin
PYTHONPATH=/tmp/ab/fin/bundle/runfiles/_main/py timeout 300 python3 $S/decode_orders.py --tag fin --rows 0,1 --pages 16,256,65536 --orders random,inorder --rounds 3 2>&1 | grep -v Warning | tee $OUT/b1_tma_orders.log
