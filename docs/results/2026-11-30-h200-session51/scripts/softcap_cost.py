"""Session 51: softcap's cost per build from an ab.txt (tools/bench/ab_kernels.py rows): the plain
row's TFLOP/s over the softcap row's, best reading per build, minus 1 (how much slower softcap is)."""
import collections
import sys

best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    w = line.split()
    if "TFLOP/s" not in line or len(w) < 8:
        continue
    build, key = w[0].rsplit("_r", 1)[0], " ".join(w[1:-4])
    best[key][build] = max(best[key].get(build, 0.0), float(w[-2]))
builds = sorted({b for v in best.values() for b in v})
print("row | " + " | ".join(builds))
for key in sorted(best):
    parts = key.split()
    if len(parts) < 5 or "sc" not in parts[2]:
        continue
    plain = best.get(" ".join([parts[0], parts[1], parts[2].split("sc")[0]] + parts[3:]))
    if plain:
        print(key + " | " + " | ".join("%+.1f%%" % (100 * (plain[b] / best[key][b] - 1)) for b in builds))
# issue 13's softcap row (S4096 causal, softcap 30) against the plain S4096 causal row
for d in (64, 128):
    cap, plain = best.get("fwd bf16 d%d S4096 softcap30" % d), best.get("fwd bf16 d%d S4096 causal" % d)
    if cap and plain:
        print("issue 13 row bf16 d%d S4096 causal softcap 30 | " % d + " | ".join("%+.1f%%" % (100 * (plain[b] / cap[b] - 1)) for b in builds))
