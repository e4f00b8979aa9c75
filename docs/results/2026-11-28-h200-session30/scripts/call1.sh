# Session 30 call 1 (H200): where the forward's time goes for softcap (d64 / d128 S4096 causal,
# plain vs softcap 30) and for predicated head dims (d80 on the 96 kernel, d200 on 256, S4096 full):
# ncu sections + pipe metrics of one fwd_kernel launch each; then HEAD's kernel-only rows.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session30/scripts
mkdir -p /tmp/head && tar xJf .carry_s30/head.tar.xz -C /tmp/head
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
ncu --version | tail -1
run() {  # tag d dv s causal softcap
  PYTHONPATH=/tmp/head/py timeout 150 ncu --clock-control none -k regex:fwd_kernel --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    --section LaunchStats --section Occupancy \
    --metrics "regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active" \
    --print-details all \
    python3 $S/prof_fwd.py $2 $3 $4 $5 $6 > $OUT/call1_ncu_$1.txt 2>&1
  echo "== $1 rc=$? $(grep -c . $OUT/call1_ncu_$1.txt) lines"
}
run d64_causal_plain 64 64 4096 1 0
run d64_causal_softcap 64 64 4096 1 30
run d128_causal_plain 128 128 4096 1 0
run d128_causal_softcap 128 128 4096 1 30
run d96_full 96 96 4096 0 0
run d80_full 80 80 4096 0 0
run d256_full 256 256 4096 0 0
run d200_full 200 200 4096 0 0
grep -h -E "Duration|Executed Ipc A|Issue Slots Busy|pipe_xu|pipe_tensor|hgmma|gmma" $OUT/call1_ncu_*.txt | head -80
for dt in bf16 fp16; do
PYTHONPATH=/tmp/head/py python3 tools/bench/ab_kernels.py --label head --dtype $dt --dims 64,128 --passes fwd --seqlens 4096 --rep 40 2>&1 | tee -a $OUT/call1_ab.txt
PYTHONPATH=/tmp/head/py python3 tools/bench/ab_kernels.py --label head --dtype $dt --dims 80,96,200,256 --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 40 2>&1 | tee -a $OUT/call1_ab.txt
done
