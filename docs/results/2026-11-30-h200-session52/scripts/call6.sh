# Call 6 (session 52): the warp stall split (ncu, stalled warps per issued instruction by reason)
# of the bf16 d64 causal forward, S4096, plain and softcap 30, HEAD's and the landed kernels.
set -u
export CARRY=.carry_s52 DC_DEADLINE=300
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session52/scripts
dc_unpack head final
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for b in head final; do
  for sc in 0 30; do
    PYTHONPATH=$DC_AB/$b/py timeout 120 $NCU --kernel-name regex:fwd_kernel --launch-skip 1 --launch-count 1 \
      --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
      python3 $S/softcap_ncu_case.py $sc > $OUT/stall_${b}_$sc.txt 2>&1
  done
done
python3 - "$OUT" <<'PY' | tee $OUT/stalls.txt
import re, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/stall_*.txt")):
    name = os.path.basename(f)[6:-4]
    for line in open(f):
        m = re.search(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio\s+\S*\s+([\d.,]+)", line)
        if m: rows.setdefault(m.group(1), {})[name] = float(m.group(2).replace(",", ""))
names = ["head_0", "head_30", "final_0", "final_30"]
print("%-28s" % "stall reason" + "".join("%10s" % n for n in names))
for r, v in sorted(rows.items(), key=lambda kv: -kv[1].get("final_30", 0)):
    if max(v.values()) >= 0.05: print("%-28s" % r + "".join("%10.2f" % v.get(n, 0) for n in names))
PY
dc_finish
