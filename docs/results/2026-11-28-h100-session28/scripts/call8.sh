# Session 28 call 8 (H100 asked for): an L2 prefetch for the TMA key-order walk -- each CTA
# prefetches its 1 / heads_kv share of the whole rows (every kv head) of the boxes 2 ("pf2") or 4
# ("pf4") blocks past its refill, so that a page's rows reach HBM as one contiguous range -- against
# the committed build ("fin"). Two rounds in alternating processes: issue 16's d128 rows and the B1
# rows at d64, pages of 16 / 256 in random order.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
for b in fin pf2 pf4; do mkdir -p /tmp/ab/$b && tar xJf .carry_s28c/$b.tar.xz -C /tmp/ab/$b; done
for r in 1 2; do
  for b in fin pf2 pf4; do
    P=/tmp/ab/$b/bundle/runfiles/_main/py
    PYTHONPATH=$P timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_l2.log
    PYTHONPATH=$P timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_l2.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/decode_ab_l2.log fin pf2
python3 $S/ab_medians.py $OUT/decode_ab_l2.log fin pf4
