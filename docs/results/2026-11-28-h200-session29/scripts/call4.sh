# Session 29 call 4 (H200): the decode maps at 128-byte L2 promotion (every head dim), built with
# an experiment switch for the forward / backward maps' promotion (exp_fwd_promotion.diff; default
# 256 B as main). (1) The KV-cache suite. (2) Issue 16's decode table, every backend in one process,
# chunked prefill beside the plain forward (tools/bench/decode.py). (3) Forward and backward
# kernel-only (ab_kernels.py, d64 / d128, S 1024 / 4096 / 16384) and the chunked-prefill rows with the
# forward maps at 256 B (fwd256, main) and 128 B (fwd128), two rounds in alternating processes.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
mkdir -p /tmp/ab/exp2 && tar xJf .carry_s29/exp2.tar.xz -C /tmp/ab/exp2
P=/tmp/ab/exp2/py
CARRY=.carry_s29/$KIND SUITES="gpu_${KIND}_kvcache:300" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -3
cp /tmp/suites/gpu_${KIND}_kvcache_test.log $OUT/call4_${KIND}_gpu_kvcache.log
echo "suite done at $SECONDS s"
PYTHONPATH=$P timeout 160 python3 tools/bench/decode.py --sweep_splits "" --out_dir $OUT 2>&1 | grep -v Warning > $OUT/call4_${KIND}_decode_table.log
tail -30 $OUT/call4_${KIND}_decode_table.log
echo "table done at $SECONDS s"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for r in 1 2; do
  for v in fwd256 fwd128; do
    PYTHONPATH=$P FLASHCORE_EXP_FWD_L2PROMO=${v#fwd} timeout 150 python3 tools/bench/ab_kernels.py --label "$v$r" --dims 64,128 --passes fwd,bwd --nofeatures >> $OUT/call4_${KIND}_fwd_ab.log 2>&1
    PYTHONPATH=$P FLASHCORE_EXP_FWD_L2PROMO=${v#fwd} timeout 60 python3 tools/bench/decode.py --prefill_only --sweep_splits "" --out_dir /tmp/pf_$v$r 2>&1 | grep -v Warning | sed "s/^/$v$r /" >> $OUT/call4_${KIND}_prefill_ab.log
    echo "$v$r at $SECONDS s"
  done
done
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
python3 - $OUT/call4_${KIND}_fwd_ab.log fwd256 fwd128 <<'PY'
import collections, sys
log, labels = sys.argv[1], sys.argv[2:]
best = collections.defaultdict(float); rows = []
for line in open(log):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        label, row = f[0].rstrip("0123456789"), " ".join(f[1:6])
        if row not in rows: rows.append(row)
        best[(row, label)] = max(best[(row, label)], float(f[-2]))
print("row".ljust(34), *[l.rjust(12) for l in labels], "last/first")
for row in rows:
    v = [best[(row, l)] for l in labels]
    print(row.ljust(34), *["%12.1f" % x for x in v], "%.3f" % (v[-1] / v[0] if v[0] else 0))
PY
grep -i "prefill\|TFLOP" $OUT/call4_${KIND}_prefill_ab.log | head -40
echo "done at $SECONDS s"
