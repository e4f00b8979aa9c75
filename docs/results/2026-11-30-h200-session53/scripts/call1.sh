# Session 53 call 1: where the page-16 decode cells lose (HEAD's kernels, ce28db8 = 1b3b58c's).
set -u
S=docs/results/2026-11-30-h200-session53/scripts
mkdir -p /tmp/ab/head && tar xJf .carry_s53/head.tar.xz -C /tmp/ab/head
export PYTHONPATH=/tmp/ab/head/py
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
timeout 330 python3 $S/paged_scatter.py 3 > $OUT/scatter.txt 2>&1; echo "scatter rc=$?"
cat $OUT/scatter.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for lay in contig p16_rand p16_ident; do
  timeout 60 $NCU --kernel-name regex:decode_kernel --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg \
    python3 $S/ncu_paged_case.py $lay > $OUT/ncu_$lay.txt 2>&1
  echo "== $lay"; grep -E "decode_kernel|gpu__time|dram__|lts__|l1tex__|sm__thr|smsp__" $OUT/ncu_$lay.txt | head -12
done
