"""compute-sanitizer case for the forward's 192-row tiles under causal sliding windows: packed
(pack-GQA, which takes windows of up to 1025 keys at groups of 4 and 8 since session 57: the call's
own pick) and unpacked (session 56's walk, forced long_rows with packing off; its racecheck did not
finish then). Both dtypes, q rows != k rows, with a sink; 8 calls, small enough for racecheck.
Outputs finite and within 2e-2 of the unpacked 128-row tile's (same math) when not sanitized."""
import os

import torch

import flashcore
from flashcore import _attention

g = torch.Generator(device="cuda").manual_seed(57)
n = 0
for dtype in (torch.bfloat16, torch.float16):
    for heads, heads_kv, window in ((8, 1, 128), (8, 2, 700)):
        for sq, sk in ((500, 500), (300, 700)):
            q = torch.randn(1, sq, heads, 64, device="cuda", dtype=dtype, generator=g)
            k, v = (torch.randn(1, sk, heads_kv, 64, device="cuda", dtype=dtype, generator=g) for _ in range(2))
            s = torch.randn(heads, device="cuda", generator=g)
            call = lambda: flashcore.flash_attn_func(q, k, v, causal=True, window_size=(window, 0),  # noqa: E731
                                                     learnable_sink=s)
            outs = [call()]  # packed, the call's own tile
            configs = [(False, "long_rows")] if os.environ.get("SAN") == "1" else [(False, "long_rows"), (False, "default")]
            for pack, tile in configs:
                _attention._set_pack_gqa(pack)
                _attention._set_forced_fwd_tile(tile)
                outs.append(call())
                _attention._set_pack_gqa(True)
                _attention._set_forced_fwd_tile(None)
            torch.cuda.synchronize()
            for o in outs:
                assert torch.isfinite(o).all(), (dtype, heads_kv, window, sq, sk)
                err = (o.float() - outs[-1].float()).abs().max().item()
                assert err < 2e-2, (dtype, heads_kv, window, sq, sk, err)
            n += len(outs)
print("window sanitizer case: %d calls, outputs finite and within 2e-2 of the unpacked 128-row tile's" % n)
