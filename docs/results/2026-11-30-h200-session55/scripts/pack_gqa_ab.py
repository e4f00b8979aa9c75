"""Pack-GQA on or off (the test-only switch _attention._set_pack_gqa) on the same build and tensors:
the d64 forward (the only head dim with pack-GQA kernels), GQA groups 4 and 8, 16k tokens, 32 query
heads, S 1024-16384, causal and full, bf16 and fp16; kernel-only (CUDA-graph replay), the two
settings alternating, best of ROUNDS. Prints TFLOP/s and off / on."""
import itertools
import sys

import torch
import triton.testing as tt

from flashcore import _attention

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
print("dtype group S mask | pack on | pack off | off / on")
for dt, grp, s, causal in itertools.product((torch.bfloat16, torch.float16), (4, 8), (1024, 4096, 8192, 16384), (False, True)):
    d, h = 64, 32
    b = 16384 // s
    g = torch.Generator(device="cuda").manual_seed(s + grp)
    q = torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g)
    k, v = (torch.randn(b, s, h // grp, d, device="cuda", dtype=dt, generator=g) for _ in range(2))
    fn = lambda: torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5, False)
    flops = 4 * b * h * s * s * d * (0.5 if causal else 1.0)
    best = {True: 0.0, False: 0.0}
    for _ in range(rounds):
        for on in (True, False):
            _attention._set_pack_gqa(on)
            fn()
            ms = tt.do_bench_cudagraph(fn, rep=40)
            best[on] = max(best[on], flops / ms / 1e9)
    _attention._set_pack_gqa(True)
    print("%s g%d S%d %s | %.1f | %.1f | %.3f" % (str(dt)[6:], grp, s, "causal" if causal else "full",
                                                  best[True], best[False], best[False] / best[True]), flush=True)
