# Session 48, call 3: where the d64 backward's consumer warps stall, per SASS instruction (ncu
# SourceCounters), at d64 causal and full S1024 (0.89 / 0.93x FA4 in session 46), on 652a9bb's
# build. Session 47's ncu: ours issues 21% more warp instructions than FA4 at causal S1024 and
# stalls on `wait` (fixed-latency dependencies) 1.46 cycles per issue against FA4's 0.66.
set -u
export CARRY=.carry_s48b
. tools/bench/device_call.sh
dc_unpack new
export PYTHONPATH=$DC_AB/new/py:tools/bench
P=docs/results/2026-11-29-h200-session44/scripts/bwd_profile_one.py
for row in causal full; do
  timeout 200 ncu --clock-control none --profile-from-start off --kernel-name regex:"bwd_kernel" \
    --section SourceCounters --section WarpStateStats --section InstructionStats --import-source no \
    -o /tmp/src_$row -f python3 $P flashcore bf16:64:$row:1024 > $OUT/ncu_$row.log 2>&1
  echo "ncu $row rc=$?"; tail -3 $OUT/ncu_$row.log
  ncu -i /tmp/src_$row.ncu-rep --page source --csv --print-source sass 2>$OUT/src_err_$row.txt | gzip > $OUT/src_$row.csv.gz
  ls -la $OUT/src_$row.csv.gz; head -c 600 $OUT/src_err_$row.txt
  ncu -i /tmp/src_$row.ncu-rep --page details > $OUT/details_$row.txt 2>&1
done
dc_finish
