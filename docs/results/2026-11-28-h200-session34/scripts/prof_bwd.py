"""Per-kernel GPU time of one backward (autograd, eager) for flashcore, cuDNN and FA2 (torch SDPA),
from torch.profiler: which share is the main kernel and which the side passes. bf16, 16k tokens,
hidden 2048 (the paper grid)."""
import argparse, collections, torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
from torch.profiler import profile, ProfilerActivity
from torch.autograd import DeviceType
import flashcore

ap = argparse.ArgumentParser()
ap.add_argument("--dims", default="64,96,128")
ap.add_argument("--rows", default="1024:0,1024:1,16384:0")
ap.add_argument("--backends", default="flashcore,cudnn,flash")
args = ap.parse_args()
CALLS = 10
dt = torch.bfloat16
for d in [int(x) for x in args.dims.split(",")]:
    for row in args.rows.split(","):
        s, causal = int(row.split(":")[0]), row.split(":")[1] == "1"
        b, h = 16384 // s, 2048 // d
        flops = 2.5 * 4 * b * h * s * s * d * (0.5 if causal else 1.0)
        g = torch.Generator(device="cuda").manual_seed(s + d)
        q, k, v, dout = (torch.randn(b, s, h, d, device="cuda", dtype=dt, generator=g) for _ in range(4))
        for be in args.backends.split(","):
            qq, kk, vv = (x.detach().clone().requires_grad_() for x in (q, k, v))
            if be == "flashcore":
                out = flashcore.attention(qq, kk, vv, causal=causal)
                do = dout
            else:
                sb = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[be]
                with sdpa_kernel(sb):
                    out = F.scaled_dot_product_attention(qq.transpose(1, 2), kk.transpose(1, 2), vv.transpose(1, 2), is_causal=causal)
                do = dout.transpose(1, 2)
            for _ in range(3):
                torch.autograd.grad(out, (qq, kk, vv), do, retain_graph=True)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(CALLS):
                    torch.autograd.grad(out, (qq, kk, vv), do, retain_graph=True)
                torch.cuda.synchronize()
            per = collections.defaultdict(float)
            for e in prof.events():
                if e.device_type == DeviceType.CUDA:
                    per[e.name] += e.time_range.elapsed_us() / CALLS
            tot = sum(per.values())
            print(f"== {be} d{d} S{s} {'causal' if causal else 'full'}: sum of kernels {tot:.1f} us = {flops / tot / 1e6:.1f} TFLOP/s", flush=True)
            for name, us in sorted(per.items(), key=lambda x: -x[1]):
                print(f"   {us:9.1f} us {100 * us / tot:5.1f}%  {name[:150]}")
