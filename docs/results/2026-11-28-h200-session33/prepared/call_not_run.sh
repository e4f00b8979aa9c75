# NOT RUN (session 33 had 103 s of device time left, too little to start a machine). Prepared for the
# next session: prepared/d64_causal_softcap_mask_on_tanh_in_loop.diff applied as the `cand` build,
# HEAD as `head` (each build's `py` tree from its //tests:gpu_h200_bundle (or _h100_), tar cJf'd into
# .carry/cand.tar.xz / head.tar.xz; the candidate's whole bundle as .carry/gpu_<kind>_bundle.tar.gz).
# Head dim 64's causal packed-softcap kernel with the mask on tanh inside the masked copy of the
# exp2 loop (ptxas: 6 / 9 STL -> 0 bf16 / fp16, 216 fewer instructions; only those two kernels
# change, cuobjdump). Predicted: d64 softcap causal +2..+6% (the d128 causal kernel gained +3..+6%
# when its 9 STL went, session 33 call 1); every other row unchanged.
# First the float64 feature oracle's softcap combinations on cand, then a backward kernel-only A/B in
# alternating processes (2 rounds, bf16 + fp16, d64, plain and softcap 30), then the suites on cand.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # its tab.py
KIND=${KIND:-h200}
for v in head cand; do mkdir -p /tmp/ab/$v && tar xJf .carry/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/cand/py:tests timeout 90 python3 -m pytest -q -x -p no:cacheprovider tests/gpu_features_test.py \
  -k "combinations_match_float64 and softcap" 2>&1 | tail -3
for r in 1 2; do for dt in bf16 fp16; do for v in head cand; do
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
python3 $S/tab.py $OUT/ab.txt head cand
python3 docs/results/2026-11-28-h200-session32/scripts/cost.py $OUT/ab.txt head cand
CARRY=.carry SUITES="gpu_${KIND}_bwd:240 gpu_${KIND}_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
