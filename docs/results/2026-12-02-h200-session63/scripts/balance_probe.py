"""SM balance of the sm90a forward's persistent grid (session 63): each case runs twice (the
second is the one read) under ncu, which reads sm__cycles_active avg / min / max per kernel.
avg / max is the fraction of the busiest SM's time the average SM works: a dynamic tile order can
win at most 1 - avg / max of the kernel. Prints the cases in launch order ("case <name>")."""
import argparse
import random

import torch

import flashcore

ap = argparse.ArgumentParser()
ap.add_argument("--dtype", default="bf16")
ap.add_argument("--bwd", action="store_true", help="also one backward per case")
args = ap.parse_args()
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]


def dense(d, s, causal, groups=1):
    b, h = 16384 // s, 2048 // d
    q = torch.randn(b, s, h, d, device="cuda", dtype=dt)
    k = torch.randn(b, s, h // groups, d, device="cuda", dtype=dt)
    v = torch.randn(b, s, h // groups, d, device="cuda", dtype=dt)
    return lambda: flashcore.flash_attn_func(q, k, v, causal=causal), (q, k, v)


def packed(d, lengths, causal):
    h = 2048 // d
    total = sum(lengths)
    cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), device="cuda", dtype=torch.int32)
    q = torch.randn(total, h, d, device="cuda", dtype=dt)
    k = torch.randn(total, h, d, device="cuda", dtype=dt)
    v = torch.randn(total, h, d, device="cuda", dtype=dt)
    m = max(lengths)
    return lambda: flashcore.flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=causal), (q, k, v)


rng = random.Random(13)
mixed = [rng.randint(100, 4000) for _ in range(64)]
cases = []
for d in (64, 128):
    for s in (4096, 16384):
        for causal in (False, True):
            cases.append(("d%d S%d %s" % (d, s, "causal" if causal else "full"), dense(d, s, causal)))
    cases.append(("d%d varlen 4x4096 causal" % d, packed(d, [4096] * 4, True)))
    cases.append(("d%d varlen mixed causal" % d, packed(d, mixed, True)))
    cases.append(("d%d S4096 causal gqa4" % d, dense(d, 4096, True, 4)))
for name, (fn, tensors) in cases:
    print("case", name, flush=True)
    for _ in range(2):
        out = fn()
    if args.bwd:
        for t in tensors:
            t.requires_grad_(True)
        o = fn()
        o.backward(torch.randn_like(o))
        for t in tensors:
            t.requires_grad_(False)
    torch.cuda.synchronize()
