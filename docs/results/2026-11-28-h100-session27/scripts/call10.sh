# Session 27 call 10 (H200, needs_h200): the same as call 9: "fin" vs "ptr" on the contiguous cells only (the change's
# kernels), three rounds in alternating processes: the six d128 rows and the B1 rows at d64.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h100-session27/scripts
for b in fin ptr; do mkdir -p /tmp/ab/$b && tar xJf .carry_s27/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
for r in 1 2 3; do
  for b in fin ptr; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --pages "" 2>&1 | grep -v Warning >> $OUT/decode_ab_ptr_h200.log
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $S/decode_orders.py --tag "$b-$r" --rows 0,1 --dims 64 --pages "" 2>&1 | grep -v Warning >> $OUT/decode_ab_ptr_h200.log
  done
done
echo "A/B done at $SECONDS s"
python3 $S/ab_medians.py $OUT/decode_ab_ptr_h200.log fin ptr
