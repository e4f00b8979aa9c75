# Session 18 call 12: ncu of the 80-row head-dim-128 backward main kernel (1d8df98's build, the
# same backward as main's): bf16 full S4096, warp-state and source-level stall samples, top SASS
# lines and stall reasons -- where the next step for issue 14 starts.
# $C/src_top.py is docs/results/2026-11-24-h100-dq-slices/scripts/src_top.py (carried unchanged).
set -u
C=$PWD/.carry_s18; REPO=$PWD
mkdir -p /tmp/r && tar xzf $C/base_attention_bundle.tar.gz -C /tmp/r
R=/tmp/r/bundle/runfiles
for c in full causal; do
  arg=""; [ $c = causal ] && arg="--causal"
  T0=$SECONDS
  PYTHONPATH=$R/_main/py timeout 200 ncu --clock-control none -k regex:^bwd_kernel -c 1 \
    --section SourceCounters --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -o /tmp/src_$c -f \
    python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim 128 --seqlen 4096 $arg > $OUT/ncu_$c.log 2>&1
  echo "ncu $c rc=$? $((SECONDS-T0)) s"
  ncu -i /tmp/src_$c.ncu-rep --page source --print-source sass --csv > /tmp/src_$c.csv 2>/dev/null
  python3 $C/src_top.py /tmp/src_$c.csv 30 > $OUT/top_$c.txt 2>&1
  ncu -i /tmp/src_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ncu -i /tmp/src_$c.ncu-rep --page raw --csv 2>/dev/null > /tmp/raw_$c.csv
  python3 - /tmp/raw_$c.csv <<'PY' > $OUT/stalls_$c.txt
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
paste $OUT/stalls_full.txt $OUT/stalls_causal.txt
head -24 $OUT/top_full.txt
grep -E "Duration|Tensor|Shared|L2 Hit|Throughput" $OUT/details_full.txt | head -20
