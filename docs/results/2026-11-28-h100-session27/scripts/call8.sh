# Session 27 call 8 (H100 asked for): "fin" (7d3e384) vs "ptr" (contiguous refills by pointer increments),
# three rounds in alternating processes: issue 16's six d128 rows (contiguous, page 16 / 256
# random: the paged kernels are unchanged) and the B1 rows at d64; then the KV-cache and
# paged-forward suites on "ptr".
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in fin ptr; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
for r in 1 2 3; do
  for b in fin ptr; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 150 python3 $S/decode_orders.py --tag "$b-$r" --pages 16,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_ptr.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages 16,256 --orders random 2>&1 | grep -v Warning >> $OUT/decode_ab_ptr.log
  done
done
echo "A/B done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_ptr.log fin ptr
CARRY=.carry_$KIND SUITES="gpu_${KIND}_kvcache:420 gpu_${KIND}_paged_forward:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/gpu_${KIND}_kvcache_ptr.log
cp /tmp/suites/gpu_${KIND}_paged_forward_test.log $OUT/gpu_${KIND}_paged_forward_ptr.log
echo "done at $SECONDS s"
