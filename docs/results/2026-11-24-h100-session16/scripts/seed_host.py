"""Issue 14: the seed shape B1 H8 S512 D64 forward's back-to-back per-call time (eager, host-bound:
N calls, one synchronize at the end) for flashcore.attention, flashcore.flash_attn_func, cuDNN
and torch's flash (SDPA), interleaved in rounds in one process on the same tensors; medians and
quartiles over the rounds. Kernel-only time from CUDA-graph replay beside it."""
import statistics, sys, time
sys.path.insert(0, "tools/bench")
import torch, flashcore
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from decode import graph_time_us
N, ROUNDS = 2000, 15
for dtype in (torch.float16, torch.bfloat16):
    for causal in (False, True):
        q, k, v = (torch.randn(1, 512, 8, 64, device="cuda", dtype=dtype) for _ in range(3))
        qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
        def sdpa(backend):
            def call():
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
            return call
        calls = {
            "flashcore.attention": lambda: flashcore.attention(q, k, v, causal=causal),
            "flashcore.flash_attn_func": lambda: flashcore.flash_attn_func(q, k, v, causal=causal),
            "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
            "torch_flash": sdpa(SDPBackend.FLASH_ATTENTION),
        }
        # the sdpa_kernel context manager is host work too: also time cuDNN with the backend set once
        torch.backends.cuda.enable_flash_sdp(True)
        ref = calls["cudnn"]().transpose(1, 2).float()
        for name, c in calls.items():
            out = c()
            out = out.transpose(1, 2) if out.shape[1] == 8 else out
            assert (out.float() - ref).abs().max().item() < 2e-2, name
        times = {n: [] for n in calls}
        for r in range(ROUNDS):
            for name, c in calls.items():
                for _ in range(50):
                    c()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(N):
                    c()
                torch.cuda.synchronize()
                times[name].append((time.perf_counter() - t0) / N * 1e6)
        kern = {n: graph_time_us(c, 20, 10) for n, c in calls.items()}
        base = statistics.median(times["cudnn"])
        for name, ts in times.items():
            qs = statistics.quantiles(ts, n=4)
            print("%s causal=%d %-26s per call %6.2f us (q1 %6.2f q3 %6.2f)  %.2fx cudnn | kernel %5.2f us" % (
                str(dtype)[6:], causal, name, statistics.median(ts), qs[0], qs[2], statistics.median(ts) / base, kern[name]), flush=True)
