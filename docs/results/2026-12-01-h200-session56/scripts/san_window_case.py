"""compute-sanitizer case for the forward's 192-row tiles under causal sliding windows, whose walk
this session changed (a window's full blocks run alone; forced long_rows tile, since the rule now
gives windows under 1024 keys the 128-row tile): head dims 64 and 96, both dtypes, windows small
and large against the sequence, MHA and GQA (the pack-GQA kernels take no left window), with and
without a sink, q rows != k rows; outputs checked against the 128-row tile's (same math)."""
import os

import torch

import flashcore
from flashcore import _attention

g = torch.Generator(device="cuda").manual_seed(56)
n = 0
for dtype in (torch.bfloat16, torch.float16):
    for d in (64, 96):
        for window in (16, 200, 700):
            for heads_kv in (4, 1):
                for sink in (False, True):
                    for sq, sk in ((900, 900), (600, 1000)):
                        q = torch.randn(1, sq, 4, d, device="cuda", dtype=dtype, generator=g)
                        k, v = (torch.randn(1, sk, heads_kv, d, device="cuda", dtype=dtype, generator=g)
                                for _ in range(2))
                        s = torch.randn(4, device="cuda", generator=g) if sink else None
                        outs = []
                        # Under a sanitizer (SAN=1) only the 192-row tile runs.
                        for tile in ("long_rows",) if os.environ.get("SAN") == "1" else ("long_rows", "default"):
                            _attention._set_forced_fwd_tile(tile)
                            outs.append(flashcore.flash_attn_func(q, k, v, causal=True, window_size=(window, 0),
                                                                  learnable_sink=s))
                        torch.cuda.synchronize()
                        assert torch.isfinite(outs[0]).all(), (dtype, d, window, heads_kv, sink, sq, sk)
                        if len(outs) == 2:
                            err = (outs[0].float() - outs[1].float()).abs().max().item()
                            assert err < 2e-2, (dtype, d, window, heads_kv, sink, sq, sk, err)
                        n += 1
_attention._set_forced_fwd_tile(None)
print("window sanitizer case: %d calls, long-rows outputs finite and within 2e-2 of the 128-row tile's" % n)
