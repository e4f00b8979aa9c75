# Session 29 call 5 (H200): with the decode maps at 128-byte promotion (7b2021c), key order against
# the address-order walk (forced: _addr) per head dim and page size. Three rounds in one process
# per set (decode_orders.py --rounds, median), random tables.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
mkdir -p /tmp/p128 && tar xJf .carry_s29/p128.tar.xz -C /tmp/p128
L=$OUT/call5_${KIND}_orders.log
for d in 64 128 256; do
  PYTHONPATH=/tmp/p128/py timeout 200 python3 $S/decode_orders.py --tag "p128-$d" --dims $d --pages 16,32,64,128 --orders random_key,random_addr --contig 0 --rounds 3 2>&1 | grep -v Warning >> $L
  echo "d$d at $SECONDS s"
done
cat $L
echo "done at $SECONDS s"
