# Session 33 call 4 (H200): the final build (`final`, 50facdc) against the session's start
# (`start`, 0488999, session 32's packed-softcap backward), forward and backward kernel-only,
# plain and softcap 30 on the same tensors, alternating processes, 2 rounds, bf16 + fp16: the
# session's net change on the softcap backward rows and softcap's cost (t_softcap / t_plain - 1)
# in both passes on the final kernels (the forward kernels are the same in both builds).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in start final; do mkdir -p /tmp/ab/$v && tar xJf .carry_s33/$v.tar.xz -C /tmp/ab/$v; done
for r in 1 2; do for dt in bf16 fp16; do for v in start final; do
  PYTHONPATH=/tmp/ab/$v/py timeout 120 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes fwd,bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 25 >> $OUT/call4_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 4096 --rep 25 >> $OUT/call4_ab.txt 2>&1
  echo "$r $dt $v at $SECONDS s"
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call4_ab.txt start final
echo "done at $SECONDS s"
