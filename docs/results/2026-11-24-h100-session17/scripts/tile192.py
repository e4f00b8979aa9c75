"""d192 forward: the 64-key tile against the 80-key tile (forced, one process, interleaved rounds),
cuDNN's SDPA beside them; paper grid (16k tokens, 10 heads), kernel-only (graph replay)."""
import torch, triton.testing as tt
import flashcore
from flashcore import _attention
from torch.nn.attention import sdpa_kernel, SDPBackend
rows = []
for dt in (torch.bfloat16, torch.float16):
    for s, causal in ((1024, True), (2048, True), (4096, True), (8192, True), (1024, False), (2048, False)):
        d, h, b = 192, 10, 16384 // s
        g = torch.Generator(device="cuda").manual_seed(s + causal)
        q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(3))
        flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
        qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
        fc = lambda q=q, k=k, v=v, c=causal: torch.ops.flashcore.attention_fwd(q, k, v, c, d ** -0.5)
        def cud(qt=qt, kt=kt, vt=vt, c=causal):
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, is_causal=c)
        ref = cud().transpose(1, 2).float()
        rows.append((f"{str(dt)[6:]} d192 S{s} {'causal' if causal else 'full'}", fc, cud, flops, ref))
best = {}
for rnd in range(3):
    for name, fc, cud, flops, ref in rows:
        for tile in ("default", "long_rows", "cudnn"):
            if tile == "cudnn":
                fn = cud
            else:
                _attention._set_forced_fwd_tile(tile)
                out = fc()[0]
                err = (out.float() - ref).abs().max().item()
                assert err < 2e-2, (name, tile, err)
                fn = fc
            ms = tt.do_bench_cudagraph(fn, rep=40)
            best[(name, tile)] = max(best.get((name, tile), 0), flops / ms / 1e9)
_attention._set_forced_fwd_tile(None)
print("row                       k64     k80   cudnn  k64/k80  k64/cudnn  k80/cudnn")
for name, *_ in rows:
    a, b_, c = best[(name, "default")], best[(name, "long_rows")], best[(name, "cudnn")]
    print(f"{name:24s} {a:7.1f} {b_:7.1f} {c:7.1f}  {a/b_:.3f}    {a/c:.3f}     {b_/c:.3f}", flush=True)
