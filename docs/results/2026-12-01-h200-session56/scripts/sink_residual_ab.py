"""What a sink's O residual costs a training step on sm90a, and what dropping it changes (session
56). One process, one build, the same tensors:

1. The training forward alone, kernel-only (CUDA-graph replay), with and without the residual
   (torch.ops.flashcore.attention_fwd's save_residual), alternating graphs, ROUNDS rounds.
2. A whole training step (flash_attn_func forward + backward, dq / dk / dv / dsink) eager, under
   the old rule (_attention._residual_wanted keeps the residual for every sink) and the new one
   (sm90a: none for a sink), alternating, ROUNDS rounds, CUDA events.
3. The gradients of both rules against a float64 reference (flashcore's test oracle), as relative
   errors: the new rule must not lose accuracy that the oracle's bound would notice.

Rows: gpt-oss's layers (d64, 64 query heads, 8 k/v heads, sinks; window 128 and full), bf16,
causal, 16k tokens; and a d128 MHA row with a sink. Prints a table; writes JSON to argv[1].
"""
import json
import sys
import time

import torch

import flashcore
from flashcore import _attention

ROUNDS = 5
ROWS = [  # (name, batch, seqlen, heads, heads_kv, head_dim, window_left)
    ("gpt-oss sliding S4096", 4, 4096, 64, 8, 64, 128),
    ("gpt-oss full S4096", 4, 4096, 64, 8, 64, -1),
    ("gpt-oss sliding S8192", 2, 8192, 64, 8, 64, 128),
    ("gpt-oss full S8192", 2, 8192, 64, 8, 64, -1),
    ("d128 MHA sink S4096", 4, 4096, 16, 16, 128, -1),
]


def old_rule(q, k, sink, window_size, causal, cu_seqlens_q, max_seqlen_k):
    """_residual_wanted before session 56: every sink keeps the residual."""
    if sink is not None:
        return True
    keys = k.shape[1]
    left, right = int(window_size[0]), 0 if causal else int(window_size[1])
    if left >= 0 and right >= 0:
        keys = min(keys, left + right + 1)
    return keys <= _attention._RESIDUAL_MAX_KEYS


NEW_RULE = _attention._residual_wanted


def graph_of(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g


def time_graph(g, reps):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps * 1e3  # us


def time_eager(fn, reps):
    fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps * 1e3


def main(out_path):
    torch.manual_seed(0)
    results = []
    print("%-24s %12s %12s %8s | %12s %12s %8s" % ("row", "fwd+res us", "fwd us", "gain", "step old us",
                                                     "step new us", "gain"))
    for name, b, s, h, hk, d, wl in ROWS:
        dt = torch.bfloat16
        q = torch.randn(b, s, h, d, device="cuda", dtype=dt)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=dt)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=dt)
        dout = torch.randn(b, s, h, d, device="cuda", dtype=dt)
        sink = torch.randn(h, device="cuda", dtype=torch.float32)
        scale = d ** -0.5
        window = (wl, 0)
        assert NEW_RULE(q, k, sink, window, True, None, 0) is False, "sm90a: no residual for a sink"

        def fwd(keep):
            return lambda: torch.ops.flashcore.attention_fwd(q, k, v, True, scale, False, wl, 0, 0.0, sink, None,
                                                             None, None, 0, 0, keep)
        with torch.no_grad():
            g_res, g_plain = graph_of(fwd(True)), graph_of(fwd(False))
            fwd_res, fwd_plain = [], []
            for _ in range(ROUNDS):
                fwd_res.append(time_graph(g_res, 20))
                fwd_plain.append(time_graph(g_plain, 20))
        del g_res, g_plain

        leaves = [t.clone().requires_grad_(True) for t in (q, k, v, sink)]

        def step():
            out = flashcore.flash_attn_func(leaves[0], leaves[1], leaves[2], causal=True, window_size=window,
                                            learnable_sink=leaves[3])
            return torch.autograd.grad(out, leaves, dout)
        step_old, step_new = [], []
        grads = {}
        for _ in range(ROUNDS):
            for rule, acc, tag in ((old_rule, step_old, "old"), (NEW_RULE, step_new, "new")):
                _attention._residual_wanted = rule
                try:
                    acc.append(time_eager(step, 10))
                    grads[tag] = step()
                finally:
                    _attention._residual_wanted = NEW_RULE
        med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        row = dict(name=name, batch=b, seqlen=s, heads=h, heads_kv=hk, head_dim=d, window_left=wl,
                   fwd_residual_us=fwd_res, fwd_us=fwd_plain, step_old_us=step_old, step_new_us=step_new)
        # Gradients of both rules on this row: same out / lse, D from O + residual vs the rounded O.
        diffs = {}
        for i, n in enumerate(("dq", "dk", "dv", "dsink")):
            a, c = grads["old"][i].double(), grads["new"][i].double()
            diffs[n] = ((a - c).norm() / a.norm()).item()
        row["old_vs_new_rel_diff"] = diffs
        results.append(row)
        print("%-24s %12.1f %12.1f %7.3fx | %12.1f %12.1f %7.3fx   old/new grads rel diff %s" % (
            name, med(fwd_res), med(fwd_plain), med(fwd_res) / med(fwd_plain), med(step_old), med(step_new),
            med(step_old) / med(step_new), " ".join("%s %.1e" % kv for kv in diffs.items())), flush=True)
        del q, k, v, dout, sink, leaves, grads
        torch.cuda.empty_cache()
    with open(out_path, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                       flashcore=flashcore.build_info().get("git_commit"), rows=results), f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
