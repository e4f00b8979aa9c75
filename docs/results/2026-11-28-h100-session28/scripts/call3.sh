# Session 28 call 3 (H100 asked for): HEAD ("head"), the TMA paged walk with 256-byte L2 promotion
# ("tma", call 2's build) and with 128-byte promotion ("tma2": a box row is 128 bytes; at head dim
# 64 the 256-byte promotion also pulls the neighbouring kv head's row). Three rounds in alternating
# processes; issue 16's d128 rows and the B1 rows at d64, pages of 16 / 64 / 256 in random order,
# each also forced to key order (random_key: no address-order sort).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
for b in head tma tma2; do mkdir -p /tmp/ab/$b && tar xJf .carry_s28/$b.tar.xz -C /tmp/ab/$b; done
for r in 1 2 3; do
  for b in head tma tma2; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,64,256 --orders random,random_key 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,64,256 --orders random,random_key 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/decode_ab.log head tma
python3 $S/ab_medians.py $OUT/decode_ab.log head tma2
echo "done at $SECONDS s"
