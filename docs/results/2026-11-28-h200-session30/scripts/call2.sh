# Session 30 call 2 (H200): P V of the narrow forward mainloops at N = 80 (96 kernel) and N = 208
# (256 kernel), over partial swizzle atoms of V. Correctness first (the forward suites on the
# change), then kernel-only A/B against HEAD in alternating processes (2 rounds, bf16 + fp16).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s30/h200 SUITES="gpu_h200:280 gpu_h200_features:280" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
for v in head pv; do mkdir -p /tmp/ab/$v && tar xJf .carry_s30/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head pv; do
  PYTHONPATH=/tmp/ab/$v/py timeout 120 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 80,96,200,256 \
    --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 40 >> $OUT/call2_ab.txt 2>&1
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 - $OUT/call2_ab.txt <<'PY'
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        v = f[0].rsplit("_r", 1)[0]
        key = " ".join(f[1:6])
        best[key][v] = max(best[key].get(v, 0.0), float(f[-2]))
for key, d in best.items():
    if "head" in d and "pv" in d:
        print(f"{key:40s} head {d['head']:7.1f} pv {d['pv']:7.1f} ratio {d['pv'] / d['head']:.3f}")
PY
