# Session 58 calls 2 and 3: the dsink check's statistics on the landed build (`head`: session 57's final
# build), dsink_ratios.py over fresh seeds (call 3: with the per-head metric and the packed / dlse cases; call 4: HEADS=32 (calls 3-4 printed a per-head metric, dropped); call 5: the error floor), sm90a and sm80_ptx, bf16 / fp16, d64 / d128.
set -u
export CARRY=.carry_s58 DC_DEADLINE=500
. tools/bench/device_call.sh
dc_unpack head
PYTHONPATH=$DC_AB/head/py:tests timeout 480 python3 docs/results/2026-12-01-h200-session58/scripts/dsink_ratios.py ${N:-60} ${HEADS:-8} \
  > $OUT/dsink.jsonl 2> $OUT/err.txt
echo "rc=$? at $(dc_elapsed) s"; tail -3 $OUT/err.txt; wc -l $OUT/dsink.jsonl
python3 - <<'PY'
import json, os, collections
rows = [json.loads(l) for l in open(os.environ["OUT"] + "/dsink.jsonl") if l.startswith("{")]
g = collections.defaultdict(list)
for r in rows: g[(r["arch"], r["dtype"], r["d"], r.get("feature"))].append(r)
for k, v in sorted(g.items()):
    rh = sorted(x.get("ratio_f", 0) for x in v)
    print(k, "ratio with floor median %.2f p90 %.2f max %.2f >2: %d" % (rh[len(rh)//2], rh[int(.9*len(rh))], rh[-1], sum(x > 2 for x in rh)))
    rs = sorted(x["ratio"] for x in v)
    c = sorted(x["cond"] for x in v)
    print(k, "n", len(v), "ratio median %.2f p90 %.2f max %.2f >2: %d" % (rs[len(rs)//2], rs[int(.9*len(rs))], rs[-1], sum(x > 2 for x in rs)),
          "cond median %.1f max %.1f" % (c[len(c)//2], c[-1]))
PY
dc_finish
