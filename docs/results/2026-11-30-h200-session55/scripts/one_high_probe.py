"""test_softcap_range_matches_float64's one_high inputs (tests/gpu_edge_inputs_test.py), whose dq and
dk the test does not judge: per dtype, head dim and softcap, flashcore's and the same math in the
dtype's error against float64, relative to the reference's norm and to a floor of the gradient's
natural scale (|scale| * ||dS||-free bound: ||dout|| * ||v|| * ||k|| * scale / sqrt(rows))."""
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
import torch
import flashcore
from gpu_edge_inputs_test import randn, references

print("dtype d softcap grad | ours_rel low_rel ratio | ref_norm ours_abs low_abs")
for dtype in (torch.float16, torch.bfloat16):
    for head_dim in (64, 128):
        for softcap in (30.0, 50.0, 52.5, 60.0):
            scores = "one_high"
            seed = 1000 * head_dim + int(softcap) + 10 * len(scores)
            b, s, h = 2, 300, 4
            q, k, v = (randn(b, s, h, head_dim, dtype=torch.float32, seed=seed + i) for i in range(3))
            u = randn(head_dim, dtype=torch.float32, seed=seed + 3)
            u = u / u.norm()
            q, k = 3.0 * u + 0.3 * q, -3.0 * u + 0.3 * k
            scale = 0.5 * softcap
            k[:, 7] = -k[:, 7]
            q, k, v = (t.to(dtype).requires_grad_() for t in (q, k, v))
            dout = randn(b, s, h, head_dim, dtype=dtype, seed=seed + 4)
            out = flashcore.flash_attn_func(q, k, v, softmax_scale=scale, softcap=softcap)
            grads = torch.autograd.grad(out, (q, k, v), dout)
            ref, low = references(q.detach(), k.detach(), v.detach(), dout, softmax_scale=scale, softcap=softcap)
            for name, g, r, lg in zip(("dq", "dk", "dv"), grads, (ref.dq, ref.dk, ref.dv), (low.dq, low.dk, low.dv)):
                rn = r.double().norm().item()
                e = (g.double() - r.double()).norm().item()
                l = (lg.double() - r.double()).norm().item()
                print("%s %d %.1f %s | %.3g %.3g %.2f | %.3g %.3g %.3g" % (
                    str(dtype)[6:], head_dim, softcap, name, e / rn, l / rn, e / max(l, 1e-30), rn, e, l), flush=True)
