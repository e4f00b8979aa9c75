# Session 28 call 4 (H100 asked for): the final TMA build ("fin": TMA paged walk on sm90a decode
# blocks, 256-byte L2 promotion at head dims >= 128 and 128-byte at 64, address order only for
# d64 pages of 16, the cp.async address-order kernel gone) against HEAD ("head").
# 1. The KV-cache and paged-forward suites on fin (correctness, in parallel).
# 2. Three rounds in alternating processes: issue 16's d128 rows, the B1 rows at d64 and d256;
#    pages of 16 / 32 / 64 / 256 in random order as the rule picks, forced to key order (_key)
#    and forced to address order (_addr).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts  # decode_orders.py (its _addr orders added in session 28), ab_medians.py
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for b in head fin; do mkdir -p /tmp/ab/$b && tar xJf .carry_s28/$b.tar.xz -C /tmp/ab/$b; done
CARRY=.carry_s28/$KIND SUITES="gpu_${KIND}_kvcache:300 gpu_${KIND}_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache_fin.log
cp /tmp/suites/gpu_${KIND}_paged_forward_test.log $OUT/gpu_${KIND}_paged_forward_fin.log
echo "suites done at $SECONDS s"
for r in 1 2 3; do
  for b in head fin; do
    P=/tmp/ab/$b/bundle/runfiles/_main/py
    PYTHONPATH=$P timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,32,64,256 --orders random,random_key,random_addr 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    PYTHONPATH=$P timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,32,64,256 --orders random,random_key,random_addr 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    PYTHONPATH=$P timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 256 --pages 16,64,256 --orders random,random_key,random_addr 2>&1 | grep -v Warning >> $OUT/decode_ab.log
    echo "$b-$r at $SECONDS s"
  done
done
python3 $S/ab_medians.py $OUT/decode_ab.log head fin
echo "done at $SECONDS s"
