"""Session 37: the case compute-sanitizer runs over the d192 long-rows forward kernel after its
epilogue change (O from registers in 8-byte pieces, Q's buffer freed after the last Q K^T):
dense full calls with the long-rows tile forced (ragged tiles, Sq != Sk both ways, head dims 192
and 168 predicated, more tiles than the grid so CTAs walk several), and a packed batch whose
tiles end past their sequences. Run as: compute-sanitizer --tool memcheck|racecheck python3 this."""
import torch

from flashcore import _attention
import flashcore

torch.manual_seed(0)
_attention._set_forced_fwd_tile("long_rows")
for dt in (torch.bfloat16, torch.float16):
    for d in (192, 168):
        for (b, h, sq, sk) in ((1, 2, 300, 700), (1, 3, 700, 300), (2, 1, 260, 260)):
            q = torch.randn(b, sq, h, d, device="cuda", dtype=dt)
            k = torch.randn(b, sk, h, d, device="cuda", dtype=dt)
            v = torch.randn(b, sk, h, d, device="cuda", dtype=dt)
            o = flashcore.attention(q, k, v, causal=False)
            torch.cuda.synchronize()
            assert torch.isfinite(o).all()
    lens = [130, 7, 300]
    cu = torch.tensor([0, 130, 137, 437], dtype=torch.int32, device="cuda")
    q = torch.randn(437, 2, 192, device="cuda", dtype=dt)
    k = torch.randn(437, 2, 192, device="cuda", dtype=dt)
    v = torch.randn(437, 2, 192, device="cuda", dtype=dt)
    o = flashcore.flash_attn_varlen_func(q, k, v, cu, cu, 300, 300)
    torch.cuda.synchronize()
    assert torch.isfinite(o).all()
_attention._set_forced_fwd_tile(None)
print("ok")
