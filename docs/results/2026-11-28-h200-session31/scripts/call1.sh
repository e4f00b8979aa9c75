# Session 31 call 1 (H200): the forward's P packed by integer / FMA-pipe instructions instead of
# F2FP (XU pipe). ncu XU-pipe instruction counts of d64 S4096 causal plain and softcap, both
# builds; then kernel-only A/B in alternating processes (2 rounds, bf16 + fp16).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
for v in head pack; do mkdir -p /tmp/ab/$v && tar xJf .carry_s31/$v.tar.xz -C /tmp/ab/$v; done
M="smsp__inst_executed_pipe_xu.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum"
for v in head pack; do for sc in 0 30; do
  PYTHONPATH=/tmp/ab/$v/py timeout 100 ncu --clock-control none -k regex:fwd_kernel --launch-skip 1 --launch-count 1 \
    --metrics "$M" python3 $S/prof_fwd.py 64 64 4096 1 $sc > $OUT/call1_ncu_${v}_sc$sc.txt 2>&1
  echo "== $v softcap $sc"; grep -E "smsp__|sm__|gpu__" $OUT/call1_ncu_${v}_sc$sc.txt
done; done
for r in 1 2; do for dt in bf16 fp16; do for v in head pack; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes fwd --seqlens 1024,4096,16384 --rep 30 >> $OUT/call1_ab.txt 2>&1
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 96,256 \
    --passes fwd --nofeatures --seqlens 1024,16384 --rep 30 >> $OUT/call1_ab.txt 2>&1
done; done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 $S/tab.py $OUT/call1_ab.txt head pack
