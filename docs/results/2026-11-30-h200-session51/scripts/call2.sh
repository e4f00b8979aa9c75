# Call 2 (session 51): where the page-16 split kernel's uneven finish comes from: ncu's SM active
# cycles per SM (instances) for the B1 Hk8 row, contiguous, page 16 in the rule's (address) order,
# forced key order, and pages laid in key order; HEAD's kernels.
set -u
OUT=${OUT:?}
S=docs/results/2026-11-30-h200-session51/scripts
mkdir -p /tmp/h && tar xJf .carry_s51/head.tar.xz -C /tmp/h
export PYTHONPATH=/tmp/h/py
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for row in "8 131072" "32 65536"; do
for lay in contig page16 page16key page16inorder page256; do
  echo "== $row $lay" | tee -a $OUT/ncu_inst.txt
  timeout 100 $NCU --clock-control none --kernel-name regex:decode_kernel --launch-skip 2 --launch-count 1 \
    --print-metric-instances values --metrics gpu__time_duration.sum,sm__cycles_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 $S/decode_ncu.py $row $lay 0 2>&1 | grep -E "void decode|gpu__|sm__|dram__" | sed 's/  */ /g' >> $OUT/ncu_inst.txt
  python3 - "$OUT/ncu_inst.txt" <<'PY'
import sys, re
lines = open(sys.argv[1]).read().split("== ")[-1].splitlines()
for l in lines:
    if "sm__cycles_active" in l:
        vals = [float(x.replace(",", "")) for x in re.findall(r"[\d,]+(?:\.\d+)?", l.split("cycle", 1)[-1])]
        act = sorted(v for v in vals if v > 0)
        n = len(act)
        print("  SMs %d  min %.0f  p10 %.0f  median %.0f  p90 %.0f  max %.0f  mean/max %.3f" % (
            n, act[0], act[n // 10], act[n // 2], act[9 * n // 10], act[-1], sum(act) / n / act[-1]))
    elif "gpu__" in l or "dram__" in l:
        print(" ", l.strip())
PY
done
done
for lay in page16key page16inorder page16addr; do
  timeout 60 python3 $S/decode_ncu.py 8 131072 $lay 0 --time 2>&1 | grep -v Warn | tee -a $OUT/time.txt
done
echo "done at $SECONDS s"
