# Session 32 call 1 (H200): kernel-only A/B, HEAD (b6ffe00) vs new (first version of the backward change: one pass tanh + exp2, see the write-up), alternating processes, 2 rounds,
# bf16 + fp16. new = the sm90a backward holding packed P^T and W^T = P^T o (1 - tanh^2) through the
# dP^T wait under softcap (no lg2), plus session 31's prepared forward diff (softcap's tanh inside
# the softmax step on d64 / d96's two-consumer and few-tiles tiles). Plain and softcap-30 rows.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py (the session 32 run used an identical copy)
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in head new; do mkdir -p /tmp/ab/$v && tar xJf .carry_s32/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in head new; do
  PYTHONPATH=/tmp/ab/$v/py timeout 200 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes fwd,bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/call1_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96 \
    --passes fwd --nofeatures --softcaps 0,30 --seqlens 1024 --rep 30 >> $OUT/call1_ab.txt 2>&1
  echo "$r $dt $v at $SECONDS s"
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call1_ab.txt head new
echo "done at $SECONDS s"
