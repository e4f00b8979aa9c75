# Session 34, device call 3 (H200). Carry .carry_s34: head.tar.xz = 720aed3's py tree, cand.tar.xz =
# the in-kernel dQ convert, second version (the writer counts a step two steps late, with an
# acquire-release atomic whose result it reads an iteration later), gpu_h200_bundle.tar.gz = cand's.
# `off` is cand with FLASHCORE_BWD_DQ_CONVERT_KERNEL=1 (the convert kernel, the new code idle):
# what the code's presence costs, apart from the conversion.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
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
for r in 1 2; do for dt in bf16; do for v in head cand off; do
  pp=/tmp/ab/$v/py; env=""; [ $v = off ] && pp=/tmp/ab/cand/py && env="FLASHCORE_BWD_DQ_CONVERT_KERNEL=1"
  env $env PYTHONPATH=$pp timeout 150 python3 tools/bench/ab_kernels.py --label ${v}_r$r --dtype $dt --dims 64,128 \
    --passes bwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 30 >> $OUT/ab.txt 2>&1
done; done; done
T=docs/results/2026-11-28-h200-session31/scripts/tab.py
echo "== cand / head"; python3 $T $OUT/ab.txt head cand
echo "== off / head"; python3 $T $OUT/ab.txt head off
CARRY=$C SUITES="gpu_h200_bwd:200 gpu_h200_features:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -6
