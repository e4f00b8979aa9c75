# Session 27 call 5: HEAD vs "w8" (sm90a split decode calls on eight-warp CTAs with 128-key
# stages, one CTA an SM; unsplit calls unchanged), three rounds in alternating processes, d128
# then d64 (random block tables; the B1 rows also with pages in physical order); then the KV-cache
# suite on w8.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in head w8; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2 3; do
  for b in head w8; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --orders random,inorder 2>&1 | grep -v Warning >> $OUT/decode_ab_w8.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_w8.log
  done
done
echo "A/B done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_w8.log head w8
CARRY=.carry_s27 SUITES="gpu_h100_kvcache:400" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -4
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache_w8.log
echo "done at $SECONDS s"
