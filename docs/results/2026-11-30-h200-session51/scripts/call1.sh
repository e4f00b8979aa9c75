# Call 1 (session 51): how unevenly the split decode kernel's CTAs finish (ncu: SM active cycles
# min / mean / max, DRAM throughput) on the B1 rows, contiguous and paged, HEAD's kernels; and
# their CUDA-graph times.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/h && tar xJf .carry_s51/head.tar.xz -C /tmp/h
export PYTHONPATH=/tmp/h/py
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
M=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size
for row in "8 131072" "32 65536"; do
  for lay in contig page16 page256; do
    echo "== Hk/k $row $lay"
    timeout 100 $NCU --clock-control none --kernel-name regex:decode_kernel --launch-skip 2 --launch-count 1 \
      --metrics $M python3 $S/decode_ncu.py $row $lay 0 2>&1 | grep -E "decode_kernel|gpu__|sm__|dram__|launch__" | sed 's/  */ /g' | tee -a $OUT/ncu.txt
  done
done
for row in "8 131072" "32 65536"; do
  for lay in contig page16 page256; do
    timeout 60 python3 $S/decode_ncu.py $row $lay 0 --time 2>&1 | grep -v Warn | tee -a $OUT/time.txt
  done
done
echo "done at $SECONDS s"
