#!/bin/bash
# s13 call 6: why a S1024 step of the sm90a backward costs more than a S16384 one (d128 bf16 full,
# rows build): ncu SOL / warp stalls / memory / raw metrics at both, side by side.
C=$PWD/.carry_s13; REPO=$PWD
mkdir -p /tmp/r && tar xzf $C/rows_attention_bundle.tar.gz -C /tmp/r
R=/tmp/r/bundle/runfiles
for s in 1024 16384; do
  T0=$SECONDS
  PYTHONPATH=$R/_main/py timeout 200 ncu --clock-control none -k regex:^bwd_kernel -c 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats \
    --metrics sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_red.sum,lts__t_sectors_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum \
    -o /tmp/rep$s -f python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 128 --seqlen $s > $OUT/ncu_s$s.log 2>&1
  echo "ncu S$s rc=$? $((SECONDS-T0)) s"
  ncu -i /tmp/rep$s.ncu-rep --page details --print-units base > $OUT/details_s$s.txt 2>&1
  ncu -i /tmp/rep$s.ncu-rep --page raw --csv 2>/dev/null > /tmp/raw$s.csv
  python3 - /tmp/raw$s.csv <<'PY' > $OUT/stalls_s$s.txt
import csv,sys
r=list(csv.reader(open(sys.argv[1]))); h,u,v=r[0],r[1],r[2]
x=[(float(v[i]),h[i]) for i in range(len(h)) if 'issue_stalled' in h[i] and h[i].endswith('per_warp_active.pct') and v[i].replace('.','',1).isdigit()]
for val,name in sorted(x,reverse=True)[:12]: print('%6.2f %s'%(val,name))
for i in range(len(h)):
    if any(k in h[i] for k in ('sm__cycles_active','sm__cycles_elapsed.max','gmma_cycles_active','op_red.sum','dram__bytes','sector_hit_rate','inst_executed.sum','gpu__time_duration.sum')):
        print(h[i], v[i])
PY
done
paste $OUT/stalls_s1024.txt $OUT/stalls_s16384.txt | cut -c1-200
grep -E "Duration|Throughput|Pipe|Busy|Hit Rate|Max Bandwidth|Mem Busy" $OUT/details_s1024.txt | head -30
echo ----
grep -E "Duration|Throughput|Pipe|Busy|Hit Rate|Max Bandwidth|Mem Busy" $OUT/details_s16384.txt | head -30
