# Session 56 call 5: the landed rules (`new`: a causal window's full blocks alone, the 128-row tile
# under 1024 window keys, the backward's 64 MB chunk budget) against `head` (calls 2-3's build),
# ab_rows.py in alternating processes head / new / new / head / head / new; then the suites on new.
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack head new
i=0
for b in head new new head head new; do
  i=$((i + 1))
  PYTHONPATH=$DC_AB/$b/py timeout 100 python3 docs/results/2026-12-01-h200-session56/scripts/ab_rows.py \
    > $OUT/ab_${i}_$b.json 2> $OUT/ab_${i}_$b.err
  echo "$b ($i) rc=$? at $(dc_elapsed) s"
done
python3 - <<'PY'
import glob, json, os
out = os.environ["OUT"]
best = {}
for f in sorted(glob.glob(out + "/ab_*.json")):
    b = f.rsplit("_", 1)[1][:-5]
    lines = [l for l in open(f) if l.startswith("{")]
    if not lines:
        continue
    for row, us in json.loads(lines[-1]).items():
        best.setdefault(row, {}).setdefault(b, []).append(us)
print("%-38s %10s %10s %8s   %s" % ("row", "head us", "new us", "new/head", "readings head | new"))
for row, v in best.items():
    h, n = min(v["head"]), min(v["new"])
    print("%-38s %10.1f %10.1f %8.3f   %s | %s" % (row, h, n, h / n, " ".join("%.0f" % x for x in v["head"]),
                                                   " ".join("%.0f" % x for x in v["new"])))
PY
dc_suites "gpu_h200_features:300 gpu_h200:300 gpu_h200_edge:240 gpu_h200_bwd:400"
dc_finish
