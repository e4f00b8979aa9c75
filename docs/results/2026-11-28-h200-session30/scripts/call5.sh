# Session 30 call 5 (H200): are off-sector rows what costs d200? The same grid at d192..256
# (align_rows.py), final build (190a4d5), three processes; ncu L2 requests/sectors at d200 and d208.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session30/scripts
mkdir -p /tmp/rule && tar xJf .carry_s30/rule.tar.xz -C /tmp/rule
for r in 1 2 3; do PYTHONPATH=/tmp/rule/py python3 $S/align_rows.py | tee -a $OUT/call5_align.txt; done
for dd in 200 208; do
  PYTHONPATH=/tmp/rule/py timeout 150 ncu --clock-control none -k regex:fwd_kernel --launch-skip 1 --launch-count 1 \
    --metrics lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active \
    python3 $S/align_rows.py --ncu $dd > $OUT/call5_ncu_d$dd.txt 2>&1
  echo "== d$dd"; grep -E "lts__|gpu__time|tensor" $OUT/call5_ncu_d$dd.txt | sed 's/  */ /g'
done
