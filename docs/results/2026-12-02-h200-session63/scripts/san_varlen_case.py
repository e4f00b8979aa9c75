"""Session 63: packed causal cases whose sorted walk pairs tiles (about 40 sequences x 7 or 8 heads x
4.5 query blocks, odd block counts among them), for compute-sanitizer; the feature suite's oracle
(tests/features_case.py run_and_check) checks each. Run with PYTHONPATH=<py>:tools/bench:tests."""
import random
import sys

import torch

import features_case

ok = 0
for head_dim in (64, 96, 128):
    for heads in (7, 8):
        for dtype in (torch.bfloat16, torch.float16):
            seed = random.randrange(1 << 30)
            rng = random.Random(seed)
            q = [rng.choice((0, 1, rng.randrange(2, 1200))) if i % 7 == 0 else rng.randrange(2, 1200) for i in range(40)]
            k = [max(0, n + rng.randrange(-64, 65)) for n in q]
            case = features_case.Case(dtype=dtype, head_dim=head_dim, varlen=True, causal=True, heads=heads, seed=seed,
                                      lengths=(tuple(q), tuple(k)))
            features_case.run_and_check(case, backward=False)
            ok += 1
print("san_varlen_case: %d cases passed" % ok)
sys.exit(0)
