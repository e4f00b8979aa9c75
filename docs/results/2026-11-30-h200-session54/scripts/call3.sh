# Session 54 call 3: the TMA walks refilling a stage at the end of the step that read it (all
# kStages stages in flight while the warps wait; exp-refill-end) against HEAD: issue 16's six rows,
# contiguous (control: cp.async, unchanged) and pages of 16 and 256, d128 then d64, two rounds in
# alternating processes; then gpu_h200_kvcache and memcheck / racecheck of the paged decode kernels
# on the new build.
set -u
S=docs/results/2026-11-30-h200-session54/scripts
T0=$(date +%s)
for b in head exp_refill; do mkdir -p /tmp/ab/$b && tar xJf .carry_s54/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
run() {  # build label dims rows
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-330} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 200 python3 $S/paged_cells.py $2 $3 2 16,256 $4 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2; do run head head_r$r 128 all; run exp_refill exp_r$r 128 all; done
for r in 1 2; do run exp_refill exp_r$r 64 b1; run head head_r$r 64 b1; done
echo "A/B done at $(( $(date +%s) - T0 )) s"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/exp_refill/py timeout 200 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=decode_kernel \
     python3 $S/san_decode_case.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/dc_suites CARRY=.carry_s54/bundle SUITES="gpu_h200_kvcache:240" OUT=$OUT/suites \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -6
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|san case" $OUT/san_$tool.log | head -3; done
echo "all done at $(( $(date +%s) - T0 )) s"
