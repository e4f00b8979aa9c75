"""v's own head dim (q/k 192, v 128: DeepSeek-V2/V3's multi-head latent attention in training),
timed against the other backends that take the pair, in one process on the same tensors:
flashcore, cuDNN and the memory-efficient kernel (torch SDPA), FlashAttention-4 where it is
importable and takes the pair (../shared/anchors/fa4/README.md). Also flashcore at (192, 192) on
the same q/k: the pair runs on the 192 forward (sm90a) with V's columns 128..191 zero-filled, and
on the 256 backward, so its time is about the square head dim's (the ratio is printed).

Forward: kernel-only (CUDA-graph replay, triton.testing.do_bench_cudagraph) next to the eager
call. Backward: eager autograd backward (forward excluded), as the other backward tables.
TFLOP/s count the FLOPs the math needs: forward 2 * B * H * pairs * (d + dv), backward
2 * B * H * pairs * (3 d + 2 dv) (S, dP, dV, dK, dQ), pairs = Sq * Sk (half + diagonal causal).

    PYTHONPATH=<bundle>/runfiles/_main/py python3 tools/bench/head_dim_pair.py [--rounds 3]

Rows: the paper grid's token count (16k tokens per batch) at 16 heads, seqlen 1k..16k, causal
and not, bf16. Each cell is timed --rounds times, rows interleaved, medians kept.
"""
import argparse
import statistics

import torch
import torch.nn.functional as F
import triton.testing as tt
from torch.nn.attention import SDPBackend, sdpa_kernel

import flashcore

D, DV, HEADS, TOKENS = 192, 128, 16, 16384


def fa4():
    try:
        from flash_attn.cute import flash_attn_func
    except Exception:  # not on this machine
        return None
    return flash_attn_func


def sdpa(backend):
    def run(q, k, v, causal):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                  is_causal=causal).transpose(1, 2)
    return run


def backends():
    out = {"flashcore": lambda q, k, v, causal: flashcore.flash_attn_func(q, k, v, causal=causal),
           "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
           "mem_efficient": sdpa(SDPBackend.EFFICIENT_ATTENTION)}
    f4 = fa4()
    if f4 is not None:
        out["fa4"] = lambda q, k, v, causal: f4(q, k, v, causal=causal)[0]
    return out


def pairs(s, causal):
    return s * (s + 1) / 2 if causal else s * s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seqlens", default="1024,4096,16384")
    args = ap.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "cudnn", torch.backends.cudnn.version())
    impls = backends()
    cells = []  # (row, backend, fwd callable, bwd callable, fwd flops, bwd flops)
    for s in [int(x) for x in args.seqlens.split(",")]:
        b = TOKENS // s
        g = torch.Generator(device="cuda").manual_seed(s)
        q, k = (torch.randn(b, s, HEADS, D, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
        v = torch.randn(b, s, HEADS, DV, device="cuda", dtype=torch.bfloat16, generator=g)
        v_square = torch.randn(b, s, HEADS, D, device="cuda", dtype=torch.bfloat16, generator=g)
        for causal in (False, True):
            row = "B%d S%d %s" % (b, s, "causal" if causal else "full")
            n = b * HEADS * pairs(s, causal)
            todo = list(impls.items()) + [("flashcore 192/192", impls["flashcore"])]
            for name, fn in todo:
                vv = v_square if name.endswith("192/192") else v
                dv = vv.shape[-1]  # each cell counts the FLOPs of its own v head dim
                fl_fwd, fl_bwd = 2 * n * (D + dv), 2 * n * (3 * D + 2 * dv)
                try:
                    out = fn(q, k, vv, causal)
                    torch.cuda.synchronize()
                except Exception as e:  # the backend does not take this case
                    print("%-22s %-18s unsupported: %s" % (row, name, str(e).splitlines()[0][:100]))
                    continue
                ql, kl, vl = (t.detach().clone().requires_grad_(True) for t in (q, k, vv))
                dout = torch.randn_like(out)
                fwd = (lambda fn=fn, q=q, k=k, vv=vv, causal=causal: fn(q, k, vv, causal))

                def bwd(fn=fn, ql=ql, kl=kl, vl=vl, dout=dout, causal=causal):
                    o = fn(ql, kl, vl, causal)
                    torch.autograd.grad(o, (ql, kl, vl), dout)
                try:
                    bwd()
                except Exception as e:
                    print("%-22s %-18s backward unsupported: %s" % (row, name, str(e).splitlines()[0][:100]))
                    bwd = None
                cells.append((row, name, fwd, bwd, fl_fwd, fl_bwd))
    times = {(r, n): {"graph": [], "eager": [], "fwdbwd": []} for r, n, *_ in cells}
    for _ in range(args.rounds):
        for row, name, fwd, bwd, _, _ in cells:
            t = times[(row, name)]
            t["graph"].append(tt.do_bench_cudagraph(fwd, rep=50))
            t["eager"].append(tt.do_bench(fwd, warmup=10, rep=50))
            if bwd is not None:
                t["fwdbwd"].append(tt.do_bench(bwd, warmup=5, rep=50))
    print("\n%-22s %-18s %9s %9s %9s   %s" % ("row", "backend", "fwd ms", "eager ms", "bwd ms", "TFLOP/s fwd / bwd"))
    tf, ms = {}, {}
    for row, name, _, bwd, fl_fwd, fl_bwd in cells:
        t = times[(row, name)]
        g, e = statistics.median(t["graph"]), statistics.median(t["eager"])
        b_ms = statistics.median(t["fwdbwd"]) - e if t["fwdbwd"] else float("nan")
        tf[(row, name)] = (fl_fwd / g / 1e9, fl_bwd / b_ms / 1e9 if t["fwdbwd"] else float("nan"))
        ms[(row, name)] = (g, b_ms)
        print("%-22s %-18s %9.3f %9.3f %9.3f   %6.1f / %6.1f" % (row, name, g, e, b_ms, *tf[(row, name)]))
    print("\nratios (TFLOP/s of the FLOPs needed): flashcore / other, forward kernel-only / backward eager")
    for row in dict.fromkeys(r for r, *_ in cells):
        if (row, "flashcore") not in tf:
            continue
        fc = tf[(row, "flashcore")]
        parts = []
        for other in ("cudnn", "fa4", "mem_efficient"):
            if (row, other) in tf:
                o = tf[(row, other)]
                parts.append("%s %.2f / %.2f" % (other, fc[0] / o[0], fc[1] / o[1]))
        if (row, "flashcore 192/192") in ms:
            sq, pr = ms[(row, "flashcore 192/192")], ms[(row, "flashcore")]
            parts.append("time pair / 192-square %.2f / %.2f" % (pr[0] / sq[0], pr[1] / sq[1]))
        print("%-22s %s" % (row, "   ".join(parts)))


if __name__ == "__main__":
    main()
