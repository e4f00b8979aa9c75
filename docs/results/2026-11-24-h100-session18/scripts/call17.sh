# Session 18 call 17: deterministic vs default backward at d64 and d128, final kernels (e8886ac's build), bf16 and fp16
set -u
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
for dt in bf16 fp16; do
OUT=$OUT/det_$dt CARRY=.carry_s18 VARIANTS="base" REPS=1 AB_ARGS="--dtype $dt --dims 64,128 --passes bwd --det --nofeatures --seqlens 1024,2048,4096,8192,16384 --rep 25" bash tools/bench/ab_kernels.sh > /dev/null
done
cat $OUT/det_bf16/ab.log $OUT/det_fp16/ab.log > $OUT/det.log
python3 - $OUT/det.log <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        rows[(f[1], f[2], f[3], f[4], f[5])] = float(f[-2])
r = []
for (p, dt, d, s, c), v in rows.items():
    if p == "bwd_det":
        base = rows[("bwd", dt, d, s, c)]
        r.append(v / base)
        print(dt, d, s, c, "det %.1f default %.1f ratio %.3f" % (v, base, v / base))
print("det/default min %.3f max %.3f over %d rows" % (min(r), max(r), len(r)))
PY
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
