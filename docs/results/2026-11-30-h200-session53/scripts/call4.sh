# Session 53 call 4: ncu stall sampling per SASS instruction of the B1 decode kernels (HEAD's
# kernels): contiguous, pages of 16 in address order and in key order (identity tables).
set -u
S=docs/results/2026-11-30-h200-session53/scripts
mkdir -p /tmp/ab/head && tar xJf .carry_s53/head.tar.xz -C /tmp/ab/head
export PYTHONPATH=/tmp/ab/head/py
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for lay in contig p16_ident/address p16_ident/key; do
  n=$(echo $lay | tr / _)
  timeout 150 $NCU --kernel-name regex:decode_kernel --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section SchedulerStats --import-source no \
    -o /tmp/rep_$n python3 $S/ncu_paged_case.py $lay 1,32,32,65536 > $OUT/ncu4_$n.txt 2>&1
  $NCU --import /tmp/rep_$n.ncu-rep --page source --csv --print-source sass > $OUT/src_$n.csv 2>> $OUT/ncu4_$n.txt
  $NCU --import /tmp/rep_$n.ncu-rep --page details > $OUT/det_$n.txt 2>&1
  echo "== $lay $(wc -l < $OUT/src_$n.csv) lines"; grep -E "Duration|Warp Cycles Per Issued" $OUT/det_$n.txt | head -3
done
gzip $OUT/src_*.csv
