set -u
for dt in bf16 fp16; do
OUT=$OUT/det_$dt CARRY=.carry_s19 VARIANTS="desc" REPS=3 AB_ARGS="--dtype $dt --dims 64 --passes bwd --det --nofeatures --seqlens 1024,2048,4096 --rep 25" bash tools/bench/ab_kernels.sh > /dev/null 2>&1
python3 - $OUT/det_$dt/ab.log <<'PY'
import sys
t = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        k = (f[1], " ".join(f[2:6])); t[k] = max(t.get(k, 0.0), float(f[-2]))
r = [(k[1], t[("bwd_det", k[1])] / t[k]) for k in t if k[0] == "bwd" and ("bwd_det", k[1]) in t]
for row, x in r: print("%-28s det/default %.3f" % (row, x))
print("min %.3f max %.3f" % (min(x for _, x in r), max(x for _, x in r)))
PY
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
