# Session 31 call 8 (H200): the final kernels (the transform's extreme without the -inf test:
# a transform runs on unmasked blocks only). Forward suites, then d128 bf16 head vs fix, 2 rounds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
CARRY=.carry_s31 SUITES="gpu_h200:200 gpu_h200_features:200 gpu_h200_edge:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
echo "suites done at $SECONDS s"
for v in head fix; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for v in head fix; do
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 128 \
    --passes fwd --seqlens 4096 --rep 30 >> $OUT/call8_ab.txt 2>&1
done; done
python3 $S/tab.py $OUT/call8_ab.txt head fix
echo "done at $SECONDS s"
