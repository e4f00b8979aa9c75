# Session 29 call 9 (H200): why 256-byte L2 promotion cost the TMA decode walk: ncu DRAM and L2
# sector counts of one split decode kernel (B1 Hq32 Hk32 k65536 d128, page 256, random table) with
# the maps at 256 and 128 bytes (the experiment build, exp_switches.diff). K + V are 1.074 GB.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session29/scripts
mkdir -p /tmp/exp && tar xJf .carry_s29/exp.tar.xz -C /tmp/exp
nvidia-smi --query-gpu=name --format=csv,noheader
for promo in 256 128; do
  FLASHCORE_EXP_L2PROMO=$promo PYTHONPATH=/tmp/exp/py timeout 200 ncu --clock-control none -k regex:decode_kernel \
    --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__sectors_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_read_lookup_hit.sum,lts__t_requests_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 $S/prof_promotion.py > $OUT/call9_ncu_promo$promo.txt 2>&1
  echo "== promo $promo rc=$?"; grep -E "gpu__time|dram__|lts__" $OUT/call9_ncu_promo$promo.txt | sed 's/  */ /g'
done
