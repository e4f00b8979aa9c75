"""The three dsink failures of this session's feature suites, rerun with their seeds: flashcore's
dsink error and the bf16 same-math error (the bar is 2x), on whichever build is on the path."""
import torch
from features_case import Case, rel_err
for kw, seed in ((dict(head_dim=128, sink=True, causal=True), 156730041),
                 (dict(head_dim=64, gqa=True, varlen=True, sink=True), 3836620327),
                 (dict(head_dim=96, varlen=True, sink=True), 4008546277),
                 (dict(head_dim=64, gqa=True, window=True, sink=True), 536252240)):
    case = Case(dtype=torch.bfloat16, seed=seed, **kw)
    ref = case.reference(torch.float64, with_grads=True)
    lowp = case.reference(case.dtype, with_grads=True)
    out, lse = case.forward()
    dq, dk, dv, dsink = case.backward(out, lse)
    floor = 1e-3 * dsink.numel() ** 0.5
    ours, lo = rel_err(dsink, ref.dsink, floor), rel_err(lowp.dsink, ref.dsink, floor)
    print("%-28s seed %10d  dsink ours %.3g  bf16 math %.3g  ratio %.2f" % (case.name, seed, ours, lo, ours / lo))
