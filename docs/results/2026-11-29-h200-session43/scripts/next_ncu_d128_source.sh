# Prepared for the next session (not run in session 43: no device time left). Where head dim 128's
# consumer waits with the 16-byte dQ^T stores (section 4): ncu source counters (SASS with executed
# counts and stall samples per instruction) of the sm90a backward main kernel, bf16 B4 S4096 H32
# d128 full, on the landed build (`final`) and the stores-only build (`f128`:
# dropped/frag_timing_d128.diff applied), for a side-by-side of the stall samples around the
# dQ^T stores, the MEMBAR / proxy fence after them and the next step's first wgmma.
# Carry: .carry_s44/final.tar.xz and f128.tar.xz (py trees of the two builds).
set -u
cd "$(dirname "$0")/../../../.."
CARRY=${CARRY:-.carry_s44}
S=docs/results/2026-11-27-h100-session23/scripts
for b in final f128; do
  mkdir -p /tmp/fc_$b && tar xJf $CARRY/$b.tar.xz -C /tmp/fc_$b
  PYTHONPATH=/tmp/fc_$b/py timeout 200 ncu --clock-control none --profile-from-start off -k regex:bwd_kernel -c 1 \
    --section SourceCounters --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
    -o /tmp/ncu_$b -f python3 $S/prof_bwd.py flashcore 128 > /tmp/ncu_$b.log 2>&1
  echo "ncu $b rc=$?"; tail -2 /tmp/ncu_$b.log
  ncu -i /tmp/ncu_$b.ncu-rep --page source --print-source sass --csv | gzip > $OUT/sass_bwd_d128_$b.csv.gz
  ncu -i /tmp/ncu_$b.ncu-rep --page details > $OUT/details_bwd_d128_$b.txt 2>&1
done
