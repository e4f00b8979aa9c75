# Session 30 call 6 (H200): tiles of heads whose rows start off a 32-byte sector start 8 columns
# early (SectorShift). Correctness first (the forward suites), then kernel-only A/B against
# 190a4d5 in alternating processes (two rounds, bf16): shifted dims 72, 200, 216, 248; controls
# 64, 96, 128, 256 (never shifted); and align_rows.py's fixed grid on both builds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session30/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s30/h200 SUITES="gpu_h200:250 gpu_h200_features:250 gpu_h200_edge:200 gpu_h200_hf:250 gpu_h200_paged_forward:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh
for v in rule shift; do mkdir -p /tmp/ab/$v && tar xJf .carry_s30/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for v in rule shift; do
  PYTHONPATH=/tmp/ab/$v/py timeout 200 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,72,96,128,200,216,248,256 \
    --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 30 >> $OUT/call6_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py python3 $S/align_rows.py | sed "s/^/$v /" >> $OUT/call6_align.txt
done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 - $OUT/call6_ab.txt <<'PY'
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        v = f[0].rsplit("_r", 1)[0]
        best[" ".join(f[1:6])][v] = max(best[" ".join(f[1:6])].get(v, 0.0), float(f[-2]))
for key, d in best.items():
    if "rule" in d and "shift" in d:
        print(f"{key:36s} rule {d['rule']:7.1f} shift {d['shift']:7.1f} ratio {d['shift'] / d['rule']:.3f}")
PY
cat $OUT/call6_align.txt
