# Session 26 call 16 (H100): the two-stage unsplit ring also for the 64-row query blocks ("rows":
# more than 16 rows a kv head, e.g. a speculative-decoding step of 8 tokens with GQA 4 or 8) vs
# HEAD, three rounds in alternating processes: B128 Hq32 Hk8 k2048 and B64 Hq64 Hk8 k4096 with 8
# causal query tokens (32 / 64 rows a kv head), d128 and d64; then the KV-cache suite on "rows".
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CELLS=docs/results/2026-11-28-h100-session26/scripts/decode_cells.py
for b in head rows; do mkdir -p /tmp/ab/$b && tar xJf .carry_ab/$b.tar.xz -C /tmp/ab/$b; done
for r in 1 2 3; do
  for b in head rows; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 100 python3 $CELLS --tag "$b-$r" --rows 4,5 --s_new 8 --dims 128,64 2>&1 | grep -v Warning >> $OUT/decode_ab_rows.log
  done
done
echo "A/B done at $SECONDS s"
python3 - $OUT/decode_ab_rows.log <<'PY'
import re, sys, statistics, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(head|rows)-\d (.*?)\s+([\d.]+) us\s+([\d.]+)%", line)
    if m: t[(m.group(2).strip(), m.group(1))].append(float(m.group(4)))
for cell in sorted({c for c, _ in t}):
    h, v = t[(cell, "head")], t[(cell, "rows")]
    print("%-46s head %s | rows %s | rows-head %+.1f" % (cell, " ".join("%.1f" % x for x in h), " ".join("%.1f" % x for x in v),
          statistics.median(v) - statistics.median(h)))
PY
mkdir -p .carry && cp .carry_ab/gpu_h100_bundle.tar.gz .carry/
CARRY=.carry SUITES="gpu_h100_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache.log
echo "done at $SECONDS s"
