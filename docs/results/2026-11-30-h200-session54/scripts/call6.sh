# Session 54 call 6: the build to land (late refills: key-order TMA walk, unsplit calls, head dims <= 128, pages <= 16)
# against HEAD, two rounds in alternating processes at d128 and d64 (contiguous, pages of 16 and 256), one
# at d256 (whose kernels must read the same); gpu_h200_kvcache on the new bundle and memcheck /
# racecheck of the paged decode kernels.
set -u
S=docs/results/2026-11-30-h200-session54/scripts
T0=$(date +%s)
for b in head late; do mkdir -p /tmp/ab/$b && tar xJf .carry_s54/$b.tar.xz -C /tmp/ab/$b; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
run() {  # build label dims pages
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-360} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 200 python3 $S/paged_cells.py $2 $3 2 $4 all >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2; do run late late_r$r 128,64 16,256; run head head_r$r 128,64 16,256; done
run head head_r1 256 16,256; run late late_r1 256 16,256
echo "A/B done at $(( $(date +%s) - T0 )) s"
python3 $S/cells_table.py $OUT/ab.txt head late
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/late/py timeout 200 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=decode_kernel \
     python3 $S/san_decode_case.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/dc_suites CARRY=.carry_s54/bundle SUITES="gpu_h200_kvcache:240" OUT=$OUT/suites \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -3
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|san case" $OUT/san_$tool.log | head -3; done
echo "all done at $(( $(date +%s) - T0 )) s"
