"""Issue 13's varlen cost bars through the public API (flash_attn_varlen_func: the checked path),
bf16 d128 h16 causal: packed 8 x 2048 vs the dense B8 S2048 batch (within 5%), and 64 mixed
lengths 100..4000 vs 64 equal lengths of the same token count (>= 90%). Forward kernel-only
(CUDA-graph replay), backward eager autograd (do_bench); TFLOP/s of the FLOPs needed; 3 rounds."""
import torch, triton.testing as tt
import flashcore
torch.manual_seed(0)
mix = [int(x) for x in torch.randint(100, 4001, (64,))]
cases = [("dense B8 S2048", None, 8, 2048), ("varlen 8x2048", [2048] * 8, 0, 0),
         ("varlen 64 mixed", mix, 0, 0), ("varlen 64 equal", [sum(mix) // 64] * 64, 0, 0)]
h, d = 16, 128
res = {}
for rnd in range(3):
    for name, lens, b, s in cases:
        g = torch.Generator(device="cuda").manual_seed(1)
        if lens is None:
            q, k, v, do = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(4))
            fl = 4 * b * h * s * s * d / 2
            f = lambda q, k, v: flashcore.flash_attn_func(q, k, v, causal=True)
        else:
            tot = sum(lens)
            q, k, v, do = (torch.randn(tot, h, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(4))
            cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.int32, device="cuda")
            fl = sum(4 * h * L * L * d / 2 for L in lens)
            f = lambda q, k, v, cu=cu, m=max(lens): flashcore.flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=True)
        f(q, k, v)
        fwd = tt.do_bench_cudagraph(lambda: f(q, k, v), rep=50)
        for t in (q, k, v):
            t.requires_grad_()
        o = f(q, k, v)
        bwd = tt.do_bench(lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True), warmup=25, rep=200)
        res.setdefault(name, []).append((fl / fwd / 1e9, 2.5 * fl / bwd / 1e9))
best = {n: (max(x[0] for x in v), max(x[1] for x in v)) for n, v in res.items()}
for n, (f_, b_) in best.items():
    print("%-18s fwd %6.1f  bwd %6.1f TFLOP/s" % (n, f_, b_))
for a, b_ in (("varlen 8x2048", "dense B8 S2048"), ("varlen 64 mixed", "varlen 64 equal")):
    print("%s / %s: fwd %.3f  bwd %.3f" % (a, b_, best[a][0] / best[b_][0], best[a][1] / best[b_][1]))
