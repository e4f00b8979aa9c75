"""The dsink check's statistics (session 51's rare miss: sm80_ptx, bf16, d128, sink, dsink rel err
2.2x the same math in bf16 on one seed in ~40). For N fresh seeds per (arch, dtype, head dim): the
feature suite's sink case (tests/features_case.py Case(sink=True): 8 heads, B2, Sq150, Sk211),
flashcore's dsink error and the bf16 / fp16 math's against float64, their ratio, and the sum's
condition number ||sum_r |p_sink,r D_r| ||_heads / ||dsink|| (float64); from call 5 on also the check's
error floor (features_case.dsink_error_floor) and the ratio against it. Prints one JSON line per case."""
import json
import sys

import torch

from flashcore import _attention
import features_case as fc

n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
heads = int(sys.argv[2]) if len(sys.argv) > 2 else 8  # the Case's query heads (the suite's: 8)
for arch in ("sm90a", "sm80_ptx"):
    _attention._set_forced_arch(arch)
    for dtype in (torch.bfloat16, torch.float16):
        for d in (64, 128):
            for i in range(n):
                # the feature suite's sink case; every 4th PTX_FEATURES["all"] (packed), every 4th + 1
                # the sink case with an lse gradient (dlse)
                feat = ("all", "dlse", "sink", "sink")[i % 4]
                kw = dict(sink=True) if feat != "all" else dict(gqa=True, varlen=True, window=True, softcap=True,
                                                                sink=True, causal=True)
                case = fc.Case(dtype=dtype, head_dim=d, heads=heads, **kw)
                if feat == "dlse":
                    case.dlse = torch.randn(case.lse_shape(), device="cuda")
                ref, lowp = case.reference(torch.float64), case.reference(case.dtype)
                out, lse = case.forward()
                dq, dk, dv, dsink = case.backward(out, lse)
                ours = fc.rel_err(dsink, ref.dsink, 1e-3 * dsink.numel() ** 0.5)
                low = fc.rel_err(lowp.dsink, ref.dsink, 1e-3 * dsink.numel() ** 0.5)
                cond = (fc.dsink_terms(ref.out, case.dout, ref.lse, case.sink, case.q_rows(), case.varlen, case.dlse)
                        .abs().sum(0).norm() / ref.dsink.double().norm()).item()
                if hasattr(fc, "dsink_error_floor"):  # the check since session 58 (call 5 on)
                    terms = fc.dsink_terms(ref.out, case.dout, ref.lse, case.sink, case.q_rows(), case.varlen,
                                           case.dlse)
                    floor = fc.dsink_error_floor(terms, ref.dsink, fc.UNIT_ROUNDOFF[dtype])
                else:
                    floor = 0.0
                print(json.dumps(dict(heads=heads, arch=arch, dtype=str(dtype)[6:], d=d, feature=feat, seed=case.seed,
                                      ours=ours, lowp=low, ratio=ours / max(low, fc.UNIT_ROUNDOFF[dtype]), cond=cond,
                                      floor=floor, ratio_f=ours / max(low, fc.UNIT_ROUNDOFF[dtype], floor))),
                      flush=True)
_attention._set_forced_arch(None)
