# Session 34, device call 1 (H200). Carry: .carry_s34 (head.tar.xz = HEAD 9330ce6's py tree,
# cand.tar.xz = HEAD + session 33's prepared d64_causal_softcap_mask_on_tanh_in_loop.diff,
# gpu_h200_bundle.tar.gz = cand's bundle).
# 1. the float64 feature oracle's softcap combinations on cand;
# 2. backward kernel-only A/B, alternating processes, 2 rounds, bf16 + fp16, d64, plain + softcap 30;
# 3. per-kernel GPU time of one eager backward (torch.profiler, prof_bwd.py): how much of it the side
#    passes (preprocess, convert) take on the H200, flashcore and cuDNN;
# 4. the backward and feature suites on cand.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
S=docs/results/2026-11-28-h200-session31/scripts  # tab.py
C=.carry_s34
for v in head cand; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
PYTHONPATH=/tmp/ab/cand/py:tests timeout 120 python3 -m pytest -q -x -p no:cacheprovider tests/gpu_features_test.py \
  -k "combinations_match_float64 and softcap" 2>&1 | tail -3
for r in 1 2; do for dt in bf16 fp16; do for v in head cand; do
  PYTHONPATH=/tmp/ab/$v/py timeout 100 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64 \
    --passes bwd --nofeatures --softcaps 0,30 --seqlens 1024,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
python3 $S/tab.py $OUT/ab.txt head cand
python3 docs/results/2026-11-28-h200-session32/scripts/cost.py $OUT/ab.txt head cand
PYTHONPATH=/tmp/ab/head/py timeout 150 python3 docs/results/2026-11-28-h200-session34/scripts/prof_bwd.py --dims 64,128 \
  --rows 1024:0,1024:1,2048:1,4096:0,4096:1,16384:0 --backends flashcore,cudnn > $OUT/prof.txt 2>&1
grep -E "^==|preprocess|convert|dot_product|cudnn|bwd" $OUT/prof.txt | cut -c1-140 | head -90
CARRY=$C SUITES="gpu_h200_bwd:240 gpu_h200_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
