# Session 30 call 4 (H200): the bshd maps' L2 promotion by row alignment (128 bytes when a row
# starts off a 32-byte sector), kernel-only A/B against 6c667df in alternating processes (two
# rounds, bf16, forward and backward) at head dims whose rows are off the sectors (72, 136, 200,
# 248) and on them (96, 256); then the GPU suites on the final build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in pv rule; do mkdir -p /tmp/ab/$v && tar xJf .carry_s30/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for v in pv rule; do
  PYTHONPATH=/tmp/ab/$v/py timeout 200 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 72,96,136,200,248,256 \
    --passes fwd,bwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/call4_ab.txt 2>&1
done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 - $OUT/call4_ab.txt <<'PY'
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        v = f[0].rsplit("_r", 1)[0]
        best[" ".join(f[1:6])][v] = max(best[" ".join(f[1:6])].get(v, 0.0), float(f[-2]))
for key, d in best.items():
    if "pv" in d and "rule" in d:
        print(f"{key:36s} pv {d['pv']:7.1f} rule {d['rule']:7.1f} ratio {d['rule'] / d['pv']:.3f}")
PY
CARRY=.carry_s30/h200 SUITES="gpu_h200:250 gpu_h200_bwd:250 gpu_h200_features:250 gpu_h200_edge:200 gpu_h200_hf:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
