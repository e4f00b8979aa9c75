"""The Hopper forward's packed-batch tile order (kernels/hopper/tile_scheduler.cuh), timed: a
mixed-length packed batch against the equal-length one of the same token count and the dense
batch, kernel-only (CUDA-graph replay), TFLOP/s of the FLOPs actually needed. Issue 13's bars:
equal lengths within 5% of the dense batch; mixed lengths (64 sequences of 100-4000 tokens)
>= 90% of the equal-length TFLOP/s.

    PYTHONPATH=<bundle>/runfiles/_main/py python3 tools/bench/varlen_order.py [--rounds 3]

Each row is timed --rounds times, the rows interleaved, and the median kept, so that clock drift
lands on every row alike. Run it for two builds in consecutive processes to compare them: the
ratios inside one run are what the bars ask for.
"""
import argparse
import statistics

import torch
import triton.testing as tt

from flashcore import _attention


def flops(lengths, heads, head_dim, causal):
    """Forward FLOPs needed: 4 * d per (query, visible key) pair, summed over sequences."""
    pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lengths)
    return 4 * heads * head_dim * pairs


def make_row(label, lengths, heads, head_dim, causal, dense=False):
    tokens = sum(lengths)
    if dense:  # (batch, seqlen, heads, head_dim), every sequence the same length
        shape = (len(lengths), lengths[0], heads, head_dim)
        extra = {}
    else:
        shape = (tokens, heads, head_dim)
        cu = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
        extra = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lengths), max_seqlen_k=max(lengths))
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    fn = lambda: _attention.attention_core(q, k, v, softmax_scale=head_dim ** -0.5, causal=causal, **extra)
    return label, fn, flops(lengths, heads, head_dim, causal)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    gen = torch.Generator().manual_seed(0)
    mixed = [int(x) for x in torch.randint(100, 4001, (64,), generator=gen)]
    equal = [sum(mixed) // 64] * 64
    rows = []
    for causal in (True, False):
        tag = "causal" if causal else "full"
        rows.append(make_row("dense B8 S2048 %s" % tag, [2048] * 8, 16, 128, causal, dense=True))
        rows.append(make_row("varlen 8 x 2048 %s" % tag, [2048] * 8, 16, 128, causal))
        rows.append(make_row("varlen 64 x %d equal %s" % (equal[0], tag), equal, 16, 128, causal))
        rows.append(make_row("varlen 64 mixed 100-4000 %s" % tag, mixed, 16, 128, causal))
    times = {label: [] for label, _, _ in rows}
    for _ in range(args.rounds):
        for label, fn, _ in rows:
            times[label].append(tt.do_bench_cudagraph(fn, rep=60))
    tflops = {}
    for label, _, fl in rows:
        ms = statistics.median(times[label])
        tflops[label] = fl / ms / 1e9
        print("%-36s %8.3f ms %7.1f TFLOP/s  (spread %.1f%%)"
              % (label, ms, tflops[label], 100 * (max(times[label]) / min(times[label]) - 1)))
    for tag in ("causal", "full"):
        dense, eq8, eq64, mix = (tflops[label] for label, _, _ in rows if label.endswith(tag))
        print("%s: varlen 8 x 2048 / dense %.3f   mixed / equal %.3f" % (tag, eq8 / dense, mix / eq64))


if __name__ == "__main__":
    main()
