# Session 53 call 2: the page-16 walk's own cost on identity tables (HEAD's kernels).
set -u
S=docs/results/2026-11-30-h200-session53/scripts
mkdir -p /tmp/ab/head && tar xJf .carry_s53/head.tar.xz -C /tmp/ab/head
export PYTHONPATH=/tmp/ab/head/py
timeout 200 python3 $S/paged_scatter.py 3 B1_Hk32,B1_Hk8,B128_Hk8 walk > $OUT/walk.txt 2>&1; echo "walk rc=$?"
cat $OUT/walk.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for lay in contig p16_ident/address p16_ident/key; do
  f=$OUT/ncu_$(echo $lay | tr / _).txt
  timeout 90 $NCU --kernel-name regex:decode_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --metrics dram__bytes_read.sum,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct \
    python3 $S/ncu_paged_case.py $lay 1,32,32,65536 > $f 2>&1
  echo "== $lay"; grep -E "decode_kernel<|Duration|DRAM Through|Memory Through|dram__bytes|inst_executed|Issued Warp|No Eligible|Active Warps Per|Warp Cycles Per Issued|Registers Per|Grid Size" $f | head -16
done
