# Session 31 call 4 (H200): softcap is bound by the XU (MUFU) pipe at d64 (call 1: its XU
# instructions are exactly tanh + exp2 per computed score). The 192-row tile computes ~11% more
# scores at S4096 causal than the 128-row one (diagonal blocks), so with softcap the 128-row tile
# may be faster where plain calls take the 192-row one. Both tiles forced in one process (HEAD
# build), d64 and d96, causal and full, softcap 0 / 30, bf16 + fp16.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/ab/head && tar xJf .carry_s31/head.tar.xz -C /tmp/ab/head
for dt in bf16 fp16; do
  PYTHONPATH=/tmp/ab/head/py timeout 250 python3 $S/tile_softcap.py head $dt 64,96 2048,4096,16384 2 >> $OUT/call4_tiles.txt 2>&1
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 - $OUT/call4_tiles.txt <<'PY'
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 9 and f[-1] == "TFLOP/s":
        best[" ".join(f[2:7])][f[7]] = max(best[" ".join(f[2:7])].get(f[7], 0.0), float(f[-2]))
for key, d in best.items():
    if len(d) == 2:
        print(f"{key:36s} default {d['default']:7.1f} long_rows {d['long_rows']:7.1f} default/long {d['default'] / d['long_rows']:.3f}")
PY
