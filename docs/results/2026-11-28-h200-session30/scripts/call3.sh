# Session 30 call 3 (H200): is d200's forward (on the 256 kernel) bound by L2 requests of its
# 400-byte rows? (1) the forward maps' L2 promotion 256 / 128 / none (experiment switch
# FLASHCORE_EXP_FWD_L2PROMO, build = 6c667df + the switch), kernel-only, alternating processes;
# (2) ncu memory tables of one d200 and one d256 forward (S4096 full, bf16).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session30/scripts
nvidia-smi --query-gpu=name,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/exp && tar xJf .carry_s30/exp.tar.xz -C /tmp/exp
for r in 1 2; do for promo in 256 128 0; do
  FLASHCORE_EXP_FWD_L2PROMO=$promo PYTHONPATH=/tmp/exp/py timeout 120 python3 tools/bench/ab_kernels.py --label p${promo}_r$r \
    --dtype bf16 --dims 80,96,200,256 --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 40 >> $OUT/call3_ab.txt 2>&1
done; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
python3 - $OUT/call3_ab.txt <<'PY'
import collections, sys
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 8 and f[-1] == "TFLOP/s":
        v = f[0].rsplit("_r", 1)[0]
        best[" ".join(f[1:6])][v] = max(best[" ".join(f[1:6])].get(v, 0.0), float(f[-2]))
for key, d in best.items():
    print(f"{key:36s} " + " ".join(f"{v} {d[v]:7.1f} ({d[v] / d['p256']:.3f})" for v in ("p256", "p128", "p0") if v in d))
PY
for dd in 200 256; do
  PYTHONPATH=/tmp/exp/py timeout 150 ncu --clock-control none -k regex:fwd_kernel --launch-skip 1 --launch-count 1 \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight --print-details all \
    --metrics lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_global_ld.sum,l1tex__m_xbar2l1tex_read_bytes.sum,gpu__time_duration.sum \
    python3 $S/prof_fwd.py $dd $dd 4096 0 0 > $OUT/call3_ncu_d$dd.txt 2>&1
  echo "== d$dd rc=$?"; grep -E "lts__t_requests|lts__t_sectors|op_global|xbar2l1tex|gpu__time" $OUT/call3_ncu_d$dd.txt | sed 's/  */ /g'
done
