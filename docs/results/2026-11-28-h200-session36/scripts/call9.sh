# Session 36, device call 9 (H200): softcap's exp2s split between the MUFU and the FMA pipe
# (online_softmax.cuh exp2_poly; every 2nd or every 4th exp2 of a row half on unmasked softcap
# blocks, d64 and d128 sm90a forward). Carry .carry_s36p: head.tar.xz (HEAD's py tree, the
# pack-GQA build), poly2.tar.xz / poly4.tar.xz (the two variants' py trees), b2/ and b4/ (their
# gpu_h200 bundles).
# 1. the feature suites of both variants and the forward suite of poly2, in parallel;
# 2. forward A/B, kernel-only, plain and softcap 30 rows (bf16, d64 / d128, S 1024 / 4096 /
#    16384, causal and full), HEAD / poly2 / poly4 in alternating processes, 2 rounds.
# Predicted (before measuring): poly2 d128 softcap rows +5..+12%, d64 softcap +0..+8%, plain rows
# within +-1%; poly4 about half of poly2's gain.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
C=.carry_s36p
t0=$(date +%s)
for v in head poly2 poly4; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
( SUITES_WORK=/tmp/gs2 CARRY=$C/b2 SUITES="gpu_h200_features:200 gpu_h200:200" OUT=$OUT/suites2 bash tools/bench/gpu_suites.sh 2>&1 | tail -6 ) &
( SUITES_WORK=/tmp/gs4 CARRY=$C/b4 SUITES="gpu_h200_features:200" OUT=$OUT/suites4 bash tools/bench/gpu_suites.sh 2>&1 | tail -4 ) &
wait
echo "suites done at $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in head poly2 poly4; do
  [ $(( $(date +%s) - t0 )) -gt 330 ] && { echo "time guard: skipped ${v}_r$r"; continue; }
  PYTHONPATH=/tmp/ab/$v/py timeout 60 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 64,128 \
    --passes fwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head poly2 poly4
echo "all done at $(( $(date +%s) - t0 )) s"
tar czf /tmp/call.tgz -C $OUT . && rm -rf $OUT/* && mv /tmp/call.tgz $OUT/
