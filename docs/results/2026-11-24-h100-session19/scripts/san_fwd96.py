"""compute-sanitizer target for head dim 96's three-consumer long-rows forward (192 x 96, forced), and 80 / 88 on it:
full, causal and windowed, dense and packed, GQA, softcap, a sink, fp16 and bf16, lengths that are not multiples of 192
or 96. Every output checked finite (outputs poisoned with NaN first) and against torch's SDPA in float32."""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import flashcore
from flashcore import _attention

_attention._set_poison_outputs(True)
_attention._set_forced_fwd_tile("long_rows")
torch.manual_seed(0)
dev = "cuda"


def ref(q, k, v, causal, window):
    # float32 reference: (B, S, H, D) -> (B, H, S, D); GQA by repeat; bottom-right causal / window mask.
    hq, hk = q.shape[2], k.shape[2]
    qf, kf, vf = (x.float().transpose(1, 2) for x in (q, k, v))
    kf, vf = kf.repeat_interleave(hq // hk, 1), vf.repeat_interleave(hq // hk, 1)
    sq, sk = q.shape[1], k.shape[1]
    i = torch.arange(sq, device=dev)[:, None] + sk - sq
    j = torch.arange(sk, device=dev)[None, :]
    left, right = window
    if causal:
        right = 0
    keep = torch.ones(sq, sk, dtype=torch.bool, device=dev)
    if right >= 0:
        keep &= j <= i + right
    if left >= 0:
        keep &= j >= i - left
    # The math backend: racecheck reports torch's own memory-efficient kernel (session 19 call 3: 24 reports, all in
    # fmha_cutlassF_f32, none in flashcore's).
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(qf, kf, vf, attn_mask=keep).transpose(1, 2)


def run(dtype, b, sq, sk, hq, hk, d, causal=False, window=(-1, -1), softcap=0.0, sink=False, varlen=False):
    q = torch.randn(b, sq, hq, d, device=dev, dtype=dtype)
    k = torch.randn(b, sk, hk, d, device=dev, dtype=dtype)
    v = torch.randn(b, sk, hk, d, device=dev, dtype=dtype)
    s = torch.randn(hq, device=dev, dtype=torch.float32) if sink else None
    if varlen:
        cq = torch.arange(b + 1, device=dev, dtype=torch.int32) * sq
        ck = torch.arange(b + 1, device=dev, dtype=torch.int32) * sk
        o = flashcore.flash_attn_varlen_func(q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1), cq, ck, sq, sk,
                                             causal=causal, window_size=window, softcap=softcap, learnable_sink=s)
        o = o.view(b, sq, hq, d)
    else:
        o = flashcore.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap, learnable_sink=s)
    assert torch.isfinite(o).all(), "non-finite output"
    if softcap == 0.0 and not sink:
        err = (o.float() - ref(q, k, v, causal, window)).abs().max().item()
        assert err < 2e-2, "max error %g" % err


for dtype in (torch.bfloat16, torch.float16):
    for d in (96, 80, 88):
        run(dtype, 1, 1000, 1000, 4, 2, d)
        run(dtype, 1, 1000, 1300, 4, 1, d, causal=True)
        run(dtype, 2, 700, 900, 2, 2, d, window=(300, 40))
        run(dtype, 1, 900, 900, 4, 2, d, causal=True, softcap=30.0, sink=True)
        run(dtype, 2, 500, 600, 2, 1, d, causal=True, varlen=True)
torch.cuda.synchronize()
print("san_fwd96 done")
