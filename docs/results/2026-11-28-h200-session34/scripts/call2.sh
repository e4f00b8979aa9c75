# Session 34, device call 2 (H200). Carry .carry_s34: head.tar.xz = 720aed3's py tree (call 1's cand),
# cand.tar.xz = dQ converted in the main kernel (the last key block to add to a query block converts
# it, kernels/hopper/dq_convert.cuh; no convert kernel for dense calls), gpu_h200_bundle.tar.gz = cand's.
# 1. a smoke test of cand under a short timeout (a hang would show here, not in the suites);
# 2. the backward and feature suites on cand (parallel);
# 3. backward kernel-only A/B (preprocess + main + convert, CUDA-graph replay), alternating
#    processes, 2 rounds, bf16 + fp16, d64 / d128, S 1024..16384, causal and full;
# 4. per-kernel times of one eager backward on cand (prof_bwd.py).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
R=docs/results/2026-11-28-h200-session34/scripts
C=.carry_s34
for v in head cand; do mkdir -p /tmp/ab/$v && tar xJf $C/$v.tar.xz -C /tmp/ab/$v; done
PYTHONPATH=/tmp/ab/cand/py timeout 60 python3 - <<'PY' 2>&1 | tail -12
import torch, flashcore
torch.manual_seed(0)
for d, causal, s in [(128, False, 1024), (128, True, 1000), (64, True, 333), (64, False, 4096), (96, True, 700)]:
    q, k, v = (torch.randn(2, s, 4, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    out = flashcore.attention(q, k, v, causal=causal)
    g = torch.randn_like(out)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), g)
    qr, kr, vr = (x.detach().double().transpose(1, 2).requires_grad_() for x in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(qr, kr, vr, is_causal=causal)
    rq, = torch.autograd.grad(o, (qr,), g.double().transpose(1, 2))
    err = (dq.double() - rq.transpose(1, 2)).abs().max().item()
    print(f"d{d} causal={causal} S{s}: max |dq - ref| {err:.3e}, ref max {rq.abs().max().item():.3e}, nan {torch.isnan(dq).any().item()}")
PY
CARRY=$C SUITES="gpu_h200_bwd:240 gpu_h200_features:240" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
for r in 1 2; do for dt in bf16 fp16; do for v in head cand; do
  PYTHONPATH=/tmp/ab/$v/py timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
python3 docs/results/2026-11-28-h200-session31/scripts/tab.py $OUT/ab.txt head cand
PYTHONPATH=/tmp/ab/cand/py timeout 100 python3 $R/prof_bwd.py --dims 64,128 --rows 1024:0,1024:1,4096:1,16384:0 \
  --backends flashcore > $OUT/prof_cand.txt 2>&1
grep -E "^==|bwd_kernel|preprocess|convert" $OUT/prof_cand.txt | cut -c1-120
