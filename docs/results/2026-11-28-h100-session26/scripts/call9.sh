# Session 26 call 9 (H100): decode A/B of three builds, three rounds in alternating processes,
# issue 16's 18 cells at d64 and d128: HEAD; "var" (sm90a unsplit calls on a two-stage ring: at
# d64 three CTAs an SM then fit); "vartwo" (the same ring held at two CTAs an SM by its shared-
# memory request).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CELLS=docs/results/2026-11-28-h100-session25/scripts/decode_cells.py
for b in head var vartwo; do mkdir -p /tmp/ab/$b && tar xJf .carry_ab/$b.tar.xz -C /tmp/ab/$b; done
for r in 1 2 3; do
  for b in head var vartwo; do
    PYTHONPATH=/tmp/ab/$b/bundle/runfiles/_main/py timeout 120 python3 $CELLS --tag "$b-$r" --dims 64,128 2>&1 | grep -v Warning >> $OUT/decode_ab3.log
  done
done
echo "A/B done at $SECONDS s"
python3 - $OUT/decode_ab3.log <<'PY'
import re, sys, statistics, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(head|var|vartwo)-\d (.*?)\s+([\d.]+) us\s+([\d.]+)%", line)
    if m: t[(m.group(2).strip(), m.group(1))].append(float(m.group(4)))
for cell in sorted({c for c, _ in t}):
    med = {b: statistics.median(t[(cell, b)]) for b in ("head", "var", "vartwo")}
    print("%-42s head %5.1f | var %5.1f (%+.1f) | vartwo %5.1f (%+.1f)   rounds vartwo %s" % (
        cell, med["head"], med["var"], med["var"] - med["head"], med["vartwo"], med["vartwo"] - med["head"],
        " ".join("%.1f" % x for x in t[(cell, "vartwo")])))
PY
