# Session 56 call 4: the window's tile walk. `exp`: tile_scheduler.cuh's growing_m_blocks without the
# quarter rule (a causal window's full-window query blocks always run alone, never paired as
# without a window); `head`: the build of calls 2-3. fwd_window_tiles.py on each, forced tiles,
# alternating processes, two rounds each.
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack head exp
for r in 1 2; do
  for b in head exp; do
    WINDOWS=128,512,1024,1536,1792,2048,4096 PYTHONPATH=$DC_AB/$b/py timeout 120 python3 \
      docs/results/2026-12-01-h200-session56/scripts/fwd_window_tiles.py $OUT/win_${b}_r$r.json > $OUT/win_${b}_r$r.txt 2>&1
    echo "$b r$r rc=$? at $(dc_elapsed) s"
  done
done
python3 - <<'PY'
import json, os
out = os.environ["OUT"]
best = {}
for b in ("head", "exp"):
    for r in (1, 2):
        for row in json.load(open(f"{out}/win_{b}_r{r}.json"))["rows"]:
            for tile, us in row["us"].items():
                k = (row["row"], row["window"], tile, b)
                best[k] = min([best.get(k, 1e30)] + us)
keys = sorted({(k[0], k[1]) for k in best}, key=lambda x: (x[0], x[1]))
print("%-24s %6s %10s %10s %10s %10s %8s %8s" % ("row", "window", "head def", "head long", "exp def", "exp long", "def e/h", "long e/h"))
for row, w in keys:
    hd, hl = best[(row, w, "default", "head")], best[(row, w, "long_rows", "head")]
    ed, el = best[(row, w, "default", "exp")], best[(row, w, "long_rows", "exp")]
    print("%-24s %6d %10.1f %10.1f %10.1f %10.1f %8.3f %8.3f" % (row, w, hd, hl, ed, el, hd / ed, hl / el))
PY
dc_finish
