"""Session 30 (reused in 31): one forward call shape for ncu (kernel-only profile of the sm90a forward).
Usage: prof_fwd.py D DV S CAUSAL SOFTCAP [DTYPE]. Paper-grid batch (16k tokens, hidden 2048 / D
heads); runs the forward 3 times; profile the 2nd fwd_kernel launch."""
import sys

import torch
import flashcore  # noqa: F401

d, dv, s, causal, softcap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", float(sys.argv[5])
dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[6] if len(sys.argv) > 6 else "bf16"]
b, h = 16384 // s, 2048 // d
g = torch.Generator(device="cuda").manual_seed(1)
q, k = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(2))
v = torch.randn(b, s, h, dv, device="cuda", dtype=dt, generator=g)
for _ in range(3):
    torch.ops.flashcore.attention_fwd(q, k, v, causal, d ** -0.5, False, -1, 0 if causal else -1, softcap, None)
torch.cuda.synchronize()
print("ok", sys.argv[1:])
