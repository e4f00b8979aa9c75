# NOT RUN (session 32 had 152 s of device time left, too little to start a machine). Prepared for
# the next session with prepared/d128_softcap_mask_on_tanh.diff applied as the `masktanh` build and
# HEAD as `variant`; tab.py is session 31's. Head dim 128's packed-softcap variant with
# the mask applied to tanh in a pass of its own (ptxas: 9 STL -> 0 in the causal variant) against
# the landed variant (two copies of the exp2 loop). First the float64 feature oracle's d128 softcap
# combinations on the new build, then a bf16 kernel-only A/B (d128, S4096 / 16384, plain and softcap
# 30), alternating processes, two rounds.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py (the session 32 run used an identical copy)
for v in variant masktanh; do mkdir -p /tmp/ab/$v && tar xJf .carry_s32/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/masktanh/py:tests timeout 45 python3 -m pytest -q -x -p no:cacheprovider tests/gpu_features_test.py \
  -k "combinations_match_float64 and softcap and 128" 2>&1 | tail -3
echo "oracle done at $SECONDS s"
for r in 1 2; do for v in variant masktanh; do
  PYTHONPATH=/tmp/ab/$v/py timeout 25 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype bf16 --dims 128 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 4096,16384 --rep 20 >> $OUT/call5_ab.txt 2>&1
done; done
python3 $S/tab.py $OUT/call5_ab.txt variant masktanh
echo "done at $SECONDS s"
