#!/usr/bin/env bash
# Session 21, call 13 (H100): ncu of the page-sort grid (B1 H32 page 16, scripts/prof_decode.py):
# warp states and per-SASS-instruction stall samples. Carry .carry_s21 (narrow_attention_bundle).
set -u
mkdir -p /tmp/pd && tar xzf .carry_s21/narrow_attention_bundle.tar.gz -C /tmp/pd
R=/tmp/pd/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
timeout 150 ncu --clock-control none --profile-from-start off -k regex:page_sort -c 1 --section SpeedOfLight \
  --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy --import-source no \
  -o /tmp/ps -f python3 docs/results/2026-11-25-h100-session21/scripts/prof_decode.py 16 > $OUT/ncu_sort.log 2>&1
ncu -i /tmp/ps.ncu-rep --page details > $OUT/details_sort.txt 2>&1
ncu -i /tmp/ps.ncu-rep --page source --print-source sass --csv > $OUT/sass_sort.csv 2>/dev/null
grep -E "Duration|Elapsed|Warp Cycles Per Issued|Executed Instructions  |Stall|Dynamic Shared" $OUT/details_sort.txt | head -20
python3 - "$OUT/sass_sort.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows = rows[1:] if rows and rows[0] and rows[0][0] == "Kernel Name" else rows  # ncu's first row names the kernel
hdr = rows[0]
print(hdr[:12])
def col(name):
    for i, h in enumerate(hdr):
        if h.strip().lower() == name.lower():
            return i
    return None
src = col("Source"); samp = col("Warp Stall Sampling (All Samples)") or col("Sampling Data (All)")
print("cols", src, samp)
if src is not None and samp is not None:
    data = []
    for r in rows[1:]:
        try:
            data.append((float(r[samp].replace(",", "")), r[src]))
        except Exception:
            pass
    tot = sum(d[0] for d in data) or 1
    for v, s in sorted(data, reverse=True)[:25]:
        print("%6.1f%%  %s" % (100 * v / tot, s[:110]))
PY
