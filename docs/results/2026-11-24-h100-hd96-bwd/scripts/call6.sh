#!/bin/bash
# s12 call 6: where the sm90a backward's warps wait -- ncu source-level stall samples of the main
# kernel (v0 = b5f3b64) at d96 and d128 (bf16, S4096, full), top SASS lines and per-opcode sums,
# and the stall-reason ratios.
C=$PWD/.carry_s12; REPO=$PWD
mkdir -p /tmp/v0 && tar xzf $C/v0_attention_bundle.tar.gz -C /tmp/v0
R=/tmp/v0/bundle/runfiles
for d in 96 128; do
  T0=$SECONDS
  PYTHONPATH=$R/_main/py timeout 150 ncu --clock-control none -k regex:bwd_kernel -c 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/rep$d -f \
    python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim $d --seqlen 4096 > $OUT/ncu_src_d$d.log 2>&1
  echo "ncu d$d rc=$? $((SECONDS-T0)) s"
  ncu -i /tmp/rep$d.ncu-rep --page source --print-source sass --csv > /tmp/src$d.csv 2>/dev/null
  python3 $C/src_top.py /tmp/src$d.csv 40 > $OUT/top_d$d.txt 2>&1; head -60 $OUT/top_d$d.txt
  ncu -i /tmp/rep$d.ncu-rep --page raw --csv 2>/dev/null | python3 -c "
import csv,sys
r=list(csv.reader(sys.stdin)); h,u,v=r[0],r[1],r[2]
x=[(float(v[i]),h[i]) for i in range(len(h)) if 'issue_stalled' in h[i] and h[i].endswith('per_warp_active.pct') and v[i].replace('.','',1).isdigit()]
for val,name in sorted(x,reverse=True)[:12]: print('%6.2f %s'%(val,name))
" > $OUT/stalls_d$d.txt 2>&1; cat $OUT/stalls_d$d.txt
done
