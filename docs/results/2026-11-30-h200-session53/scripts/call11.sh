# Session 53 call 11: the build to land (final: head dim 128's address-order walk on four warps and
# 64-key blocks, head blocks by block size) against HEAD: A/B of the B1 rows (three rounds at
# d128, two at d64, whose kernels must read the same), then gpu_h200_kvcache on final's bundle
# with memcheck and racecheck over the paged decode kernels (san_decode_case.py).
set -u
S=docs/results/2026-11-30-h200-session53/scripts
T0=$(date +%s)
for b in head final; do mkdir -p /tmp/ab/$b && tar xJf .carry_s53/$b.tar.xz -C /tmp/ab/$b; done
run() {  # build label dims
  if [ $(( $(date +%s) - T0 )) -gt ${DEADLINE:-300} ]; then echo "deadline: skipped $2"; return; fi
  PYTHONPATH=/tmp/ab/$1/py timeout 150 python3 $S/paged_ab.py $2 $3 b1 >> $OUT/ab.txt 2>&1 || echo "rc=$? $2"
}
for r in 1 2 3; do for b in head final; do run $b ${b}_r$r 128; done; done
for r in 1 2; do for b in final head; do run $b ${b}_r$r 64; done; done
python3 $S/paged_ab_table.py $OUT/ab.txt head final
echo "A/B done at $(( $(date +%s) - T0 )) s"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  (PYTHONPATH=/tmp/ab/final/py timeout 200 $SAN --tool $tool --error-exitcode 3 --kernel-name kns=decode_kernel \
     python3 $S/san_decode_case.py > $OUT/san_$tool.log 2>&1; echo "== $tool rc=$?") &
done
SUITES_WORK=/tmp/dc_suites CARRY=.carry_s53/bundle SUITES="gpu_h200_kvcache:240" OUT=$OUT/suites \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -6
wait
for tool in memcheck racecheck; do echo "-- $tool"; grep -E "SUMMARY|san case" $OUT/san_$tool.log | head -3; done
echo "all done at $(( $(date +%s) - T0 )) s"
