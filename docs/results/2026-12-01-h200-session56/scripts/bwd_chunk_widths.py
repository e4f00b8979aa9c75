"""The sm90a backward's launch-order chunk width on GQA rows (session 56): the models grid read
Qwen 2.5's layer (d128, 28 / 4 heads, S 8192 B2) at 0.83x FA4's backward while Llama 3's (32 / 8)
read 1.04x. bwd_chunk_groups caps the chunk at the groups whose Q and dO fit 32 MB of L2 -- one
group of 7 heads at S 8192 -- so the order is group-major, and a list-scheduling model of the
causal blocks puts its last wave at 1.23x the balanced time (Llama 1.11x; width 2: 1.00x).

Run as `python3 bwd_chunk_widths.py OUT.json W1 W2 ...`: for each round, each width runs in its own
process (FLASHCORE_BWD_CHUNK_GROUPS=W, read once per process; 0: the rule), timing every row's
backward (torch.autograd.grad on a retained graph: the preprocess, main and convert kernels) with
CUDA events. The child mode (--child W) prints one JSON line."""
import json
import os
import subprocess
import sys

ROUNDS = 2
ROWS = [  # (label, head_dim, batch, seqlen, heads, heads_kv, sink)
    ("qwen2.5 d128 28/4 S8192 B2", 128, 2, 8192, 28, 4, False),
    ("llama3 d128 32/8 S8192 B2", 128, 2, 8192, 32, 8, False),
    ("gqa d128 32/8 S4096 B4", 128, 4, 4096, 32, 8, False),
    ("gpt-oss d64 64/8 sink S8192 B2", 64, 2, 8192, 64, 8, True),
    ("gqa d64 32/8 S4096 B4", 64, 4, 4096, 32, 8, False),
    ("MHA d128 H16 S8192 B2", 128, 2, 8192, 16, 16, False),
    ("MHA d64 H32 S4096 B4", 64, 4, 4096, 32, 32, False),
]
# ROWSET=2 (call 3): where the L2 cap takes the chunk below the wave width (num_sms / key blocks),
# and controls.
ROWS2 = [
    ("qwen2.5 d128 28/4 S8192 B2", 128, 2, 8192, 28, 4, False),  # fit 1, wave 2
    ("qwen2.5 d128 28/4 S4096 B4", 128, 4, 4096, 28, 4, False),  # fit 2, wave 4
    ("llama3-70b d128 64/8 S8192 B1", 128, 1, 8192, 64, 8, False),  # fit 1, wave 2
    ("MQA d128 32/1 S4096 B4", 128, 4, 4096, 32, 1, False),  # fit 1, wave 4
    ("gpt-oss d64 64/8 sink S4096 B4", 64, 4, 4096, 64, 8, True),  # fit 4, wave 4
    ("MHA d128 H16 S16384 B1", 128, 1, 16384, 16, 16, False),  # wave 1
]
if os.environ.get("ROWSET") == "2":
    ROWS = ROWS2


def child():
    import torch
    import flashcore
    res = {}
    for label, d, b, s, h, hk, has_sink in ROWS:
        g = torch.Generator(device="cuda").manual_seed(1)
        q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_(True)
        k = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_(True)
        v = torch.randn(b, s, hk, d, device="cuda", dtype=torch.bfloat16, generator=g).requires_grad_(True)
        dout = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16, generator=g)
        leaves = [q, k, v]
        sink = None
        if has_sink:
            sink = torch.randn(h, device="cuda", generator=g).requires_grad_(True)
            leaves.append(sink)
        out = flashcore.flash_attn_func(q, k, v, causal=True, learnable_sink=sink)
        for _ in range(3):
            grads = torch.autograd.grad(out, leaves, dout, retain_graph=True)
        torch.cuda.synchronize()
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        reps = 10
        a.record()
        for _ in range(reps):
            torch.autograd.grad(out, leaves, dout, retain_graph=True)
        e.record()
        torch.cuda.synchronize()
        res[label] = dict(us=a.elapsed_time(e) / reps * 1e3,
                          dq_norm=grads[0].float().norm().item(), dk_norm=grads[1].float().norm().item())
        del q, k, v, dout, out, grads, leaves
        torch.cuda.empty_cache()
    print(json.dumps(res))


def main(path, widths):
    runs = []
    for r in range(ROUNDS):
        for w in widths:
            env = dict(os.environ, FLASHCORE_BWD_CHUNK_GROUPS=str(w))
            p = subprocess.run([sys.executable, __file__, "--child", str(w)], env=env, capture_output=True, text=True,
                               timeout=240)
            line = [x for x in p.stdout.splitlines() if x.startswith("{")]
            if p.returncode != 0 or not line:
                print("width", w, "failed:", p.stderr[-2000:], flush=True)
                continue
            runs.append(dict(round=r, width=w, rows=json.loads(line[-1])))
            print("round %d width %d done" % (r, w), flush=True)
    best = {}
    for run in runs:
        for label, x in run["rows"].items():
            key = (label, run["width"])
            best[key] = min(best.get(key, 1e30), x["us"])
    print("%-32s" % "row" + "".join("%12s" % ("w=%d" % w if w else "rule") for w in widths) + "   best/rule")
    for label, *_ in ROWS:
        t = [best.get((label, w)) for w in widths]
        rule = best.get((label, 0))
        row = "%-32s" % label + "".join("%12.1f" % x if x else "%12s" % "-" for x in t)
        if rule:
            row += "   %.3f" % (min(x for x in t if x) / rule)
        print(row, flush=True)
    with open(path, "w") as f:
        json.dump(dict(widths=widths, runs=runs), f, indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child()
    else:
        main(sys.argv[1], [int(x) for x in sys.argv[2:]])
