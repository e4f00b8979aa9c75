# Session 30 call 7 (H200): the SectorShift build crashed (illegal instruction, call 6). Which
# shift: FLASHCORE_EXP_SHIFT=1 (Q and K loads at column -8), 2 (V's load; O then stored by the
# consumers, not the TMA), 3 (both). If 3 runs correctly: suites and the A/B.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session30/scripts
for v in rule shift; do mkdir -p /tmp/ab/$v && tar xJf .carry_s30/$v.tar.xz -C /tmp/ab/$v; done
ok=1
for m in 1 2 3; do
  FLASHCORE_EXP_SHIFT=$m PYTHONPATH=/tmp/ab/shift/py timeout 60 python3 $S/shift_check.py > $OUT/call7_check_mode$m.txt 2>&1
  echo "== mode $m rc=$? $(grep -c OK $OUT/call7_check_mode$m.txt) ok, $(grep -c BAD $OUT/call7_check_mode$m.txt) bad $(grep -m1 -o 'illegal[a-z ]*' $OUT/call7_check_mode$m.txt)"
done
grep -q "illegal\|BAD" $OUT/call7_check_mode3.txt && exit 0
CARRY=.carry_s30/h200 SUITES="gpu_h200:200 gpu_h200_features:200 gpu_h200_paged_forward:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
for r in 1 2; do for v in rule shift; do
  PYTHONPATH=/tmp/ab/$v/py python3 $S/align_rows.py | sed "s/^/$v /" >> $OUT/call7_align.txt
done; done
cat $OUT/call7_align.txt
