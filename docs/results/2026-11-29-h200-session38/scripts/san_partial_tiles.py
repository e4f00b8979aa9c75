"""Session 38: the cases compute-sanitizer runs over the sm90a forward after bottom-aligned tiles
(a causal sequence whose rows are not a multiple of the tile starts with its partial tile, rows
before the sequence loaded and never stored): packed causal batches whose first sequence starts
at row 0 (the tile reaches before the tensor) and later ones that start inside a tile, d64 (also
pack-GQA), d96, d128, d192, d256; a right-bounded window; dense causal with S % 128 != 0 and
Sq != Sk both ways, GQA 8 / 2 (d64: pack-GQA, rows of 2^3 heads); a forced few-tiles / long-rows tile. Each output row is checked against a
float64 reference. Run as: compute-sanitizer --tool memcheck|racecheck python3 this."""
import torch

from flashcore import _attention
import flashcore


def ref(q, k, v, causal, window=(-1, -1)):
    q, k, v = (x.double() for x in (q, k, v))
    sq, sk = q.shape[0], k.shape[0]
    hq, hk = q.shape[1], k.shape[1]
    k = k.repeat_interleave(hq // hk, 1)
    v = v.repeat_interleave(hq // hk, 1)
    s = torch.einsum("qhd,khd->hqk", q, k) * q.shape[-1] ** -0.5
    i = torch.arange(sq, device=q.device)[:, None] + sk - sq
    j = torch.arange(sk, device=q.device)[None, :]
    ok = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    left, right = window
    if causal:
        right = 0
    if right >= 0:
        ok &= j <= i + right
    if left >= 0:
        ok &= j >= i - left
    s = s.masked_fill(~ok, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return torch.einsum("hqk,khd->qhd", p, v)


torch.manual_seed(0)
worst = 0.0
for dt in (torch.bfloat16, torch.float16):
    for d, hq, hk in ((64, 4, 4), (64, 8, 2), (96, 2, 2), (128, 4, 2), (192, 2, 2), (256, 2, 2)):
        for lens, window in (([100, 7, 300, 129], (-1, -1)), ([260, 1, 640], (-1, -1)), ([333, 200], (64, 0))):
            n = sum(lens)
            cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int32, device="cuda")
            q = torch.randn(n, hq, d, device="cuda", dtype=dt)
            k = torch.randn(n, hk, d, device="cuda", dtype=dt)
            v = torch.randn(n, hk, d, device="cuda", dtype=dt)
            o = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, max(lens), max(lens), causal=window == (-1, -1),
                                                 window_size=window)
            torch.cuda.synchronize()
            for b in range(len(lens)):
                a, e = int(cu[b]), int(cu[b + 1])
                r = ref(q[a:e], k[a:e], v[a:e], window == (-1, -1), window)
                err = (o[a:e].double() - r).abs().max().item()
                worst = max(worst, err)
                assert err < 0.05, (dt, d, lens, b, err)
    for d in (64, 128):
        for (b, h, hk, sq, sk) in ((2, 2, 2, 1000, 1000), (1, 3, 3, 300, 700), (1, 2, 2, 700, 300), (2, 8, 2, 1000, 1000),
                                   (1, 8, 2, 75, 75)):
            q = torch.randn(b, sq, h, d, device="cuda", dtype=dt)
            k = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
            v = torch.randn(b, sk, hk, d, device="cuda", dtype=dt)
            for tile in (None, "few_tiles", "long_rows"):
                _attention._set_forced_fwd_tile(tile)
                o = flashcore.attention(q, k, v, causal=True)
                torch.cuda.synchronize()
                _attention._set_forced_fwd_tile(None)
                for bi in range(b):
                    r = ref(q[bi], k[bi], v[bi], True)
                    err = (o[bi].double() - r).abs().max().item()
                    worst = max(worst, err)
                    assert err < 0.05, (dt, d, b, sq, sk, tile, err)
print("ok, worst abs error %.3g" % worst)
