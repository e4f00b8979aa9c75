# Session 26 call 8 (H100): decode A/B, HEAD vs "var" (sm90a unsplit calls on a two-stage ring,
# dropped/unsplit_two_stage.diff): issue 16's 18 cells at d128 and d64, three rounds in alternating
# processes; then the KV-cache suite on HEAD's bundle (the compiled-step test's mended assertion).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CELLS=docs/results/2026-11-28-h100-session25/scripts/decode_cells.py
for b in head var; do mkdir -p /tmp/ab/$b && tar xJf .carry_ab/$b.tar.xz -C /tmp/ab/$b; done
for r in 1 2 3; do
  for b in head var; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $CELLS --tag "$b$r" --dims 128,64 2>&1 | grep -v Warning >> $OUT/decode_ab.log
  done
done
echo "A/B done at $SECONDS s"
python3 - $OUT/decode_ab.log <<'PY'
import re, sys, statistics, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(head|var)\d (.*?)\s+([\d.]+) us\s+([\d.]+)%", line)
    if m: t[(m.group(2).strip(), m.group(1))].append(float(m.group(4)))
for cell in sorted({c for c, _ in t}):
    h, v = t[(cell, "head")], t[(cell, "var")]
    print("%-42s head %s | var %s | var-head %+.1f" % (cell, " ".join("%.1f" % x for x in h), " ".join("%.1f" % x for x in v),
          statistics.median(v) - statistics.median(h)))
PY
mkdir -p .carry && cp .carry_ab/gpu_h100_bundle.tar.gz .carry/
CARRY=.carry SUITES="gpu_h100_kvcache:450" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
cp /tmp/suites/gpu_h100_kvcache_test.log $OUT/gpu_h100_kvcache.log
echo "done at $SECONDS s"
