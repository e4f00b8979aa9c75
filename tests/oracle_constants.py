"""What the GPU oracle suites share: the dtypes, the unit roundoff that floors "2x torch's error"
where torch's error is exactly zero (e.g. a single key, where out == v) so one rounding of ours
still passes, and the forward / backward shape list (batch, heads, seqlen_q, seqlen_k): S=1, odd S,
non-multiples of the 64 tile, seqlen_q != seqlen_k both ways, and one shape with
batch*heads*blocks large enough to fill every SM several times."""

import torch

DTYPES = [torch.float16, torch.bfloat16]
UNIT_ROUNDOFF = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}

SHAPES = [
    (1, 1, 1, 1),
    (2, 3, 17, 17),
    (1, 2, 129, 129),
    (2, 2, 1000, 1000),
    (1, 2, 17, 300),
    (1, 2, 300, 17),
    (1, 1, 1, 1000),
    (1, 1, 1000, 1),
    (3, 2, 64, 128),
    (1, 4, 255, 511),
    (8, 32, 512, 512),
]
