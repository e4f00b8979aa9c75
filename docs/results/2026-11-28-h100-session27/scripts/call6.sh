# Session 27 call 6: HEAD vs "w8s" (eight-warp CTAs on 128-key stages only for the split calls
# that visit their pages in address order), three rounds in alternating processes on the B1 rows
# (d128, d64; contiguous, page 16 random / in physical order, page 64, 128, 256 random); then the
# KV-cache and paged-forward suites on w8s (the bundle of the GPU this call got).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in head w8s; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for r in 1 2 3; do
  for b in head w8s; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 128,64 --pages 16,64,128,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_w8s.log
  done
done
echo "A/B done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_w8s.log head w8s
CARRY=.carry_$KIND SUITES="gpu_${KIND}_kvcache:420 gpu_${KIND}_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache_w8s.log
cp /tmp/suites/gpu_${KIND}_paged_forward_test.log $OUT/gpu_${KIND}_paged_forward_w8s.log
echo "done at $SECONDS s"
