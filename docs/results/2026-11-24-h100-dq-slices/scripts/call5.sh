#!/bin/bash
# s14 call 5: ncu source-level stall samples of the backward main kernel, d128 bf16 full, S1024 vs
# S16384 (v3 = 47de2d0): top SASS lines, per-opcode sums and the stall-reason ratios.
C=$PWD/.carry_s14; REPO=$PWD
mkdir -p /tmp/r && tar xzf $C/v3_attention_bundle.tar.gz -C /tmp/r
R=/tmp/r/bundle/runfiles
for s in 1024 16384; do
  T0=$SECONDS
  PYTHONPATH=$R/_main/py timeout 200 ncu --clock-control none -k regex:^bwd_kernel -c 1 \
    --section SourceCounters --section WarpStateStats -o /tmp/src$s -f \
    python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 128 --seqlen $s > $OUT/ncu_src_s$s.log 2>&1
  echo "ncu S$s rc=$? $((SECONDS-T0)) s"
  ncu -i /tmp/src$s.ncu-rep --page source --print-source sass --csv > /tmp/src$s.csv 2>/dev/null
  python3 $C/src_top.py /tmp/src$s.csv 30 > $OUT/top_s$s.txt 2>&1
  ncu -i /tmp/src$s.ncu-rep --page raw --csv 2>/dev/null > /tmp/raw$s.csv
  python3 - /tmp/raw$s.csv <<'PY' > $OUT/stalls_s$s.txt
import csv,sys
r=list(csv.reader(open(sys.argv[1]))); h=r[0]; v=r[2] if len(r) > 2 else r[1]
x=[]
for i in range(len(h)):
    if 'issue_stalled' in h[i] and 'per_issue_active' in h[i]:
        try: x.append((float(v[i]), h[i]))
        except ValueError: pass
for val,name in sorted(x,reverse=True)[:14]: print('%7.3f %s'%(val,name.replace('smsp__average_warps_issue_stalled_','').replace('_per_issue_active.ratio','')))
PY
done
paste $OUT/stalls_s1024.txt $OUT/stalls_s16384.txt
head -50 $OUT/top_s16384.txt
