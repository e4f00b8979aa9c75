"""Two GPUs in one process (issue 12): every kernel family on the non-current device, devices
alternating call by call, two threads on two devices at once, a side stream per device, a model
split over two devices (pipeline / device_map="auto" style), and DDP + FSDP training with
torchrun against sdpa. Run by //tests:gpu_h200x2 on a machine with two GPUs of one kind.

The strongest check available: the same kernel on the same inputs on two identical GPUs must
give bitwise-identical forward outputs (and deterministic-mode gradients); a kernel that did not
run, ran on the wrong device or stream, or read stale per-device state does not.
"""

import os
import subprocess
import sys
import threading

import pytest
import torch

import flashcore
from flashcore.reference import attention_reference

EXPECTED_GPU = os.environ.get("FLASHCORE_EXPECTED_GPU", "")
HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = [(dtype, d, causal) for dtype in (torch.float16, torch.bfloat16) for d in (64, 128) for causal in (False, True)]


def check_two_gpus():
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        sys.exit("flashcore multi-device suite: needs 2 CUDA devices, found %d"
                 % (torch.cuda.device_count() if torch.cuda.is_available() else 0))
    names = [torch.cuda.get_device_name(i) for i in range(2)]
    if names[0] != names[1] or (EXPECTED_GPU and EXPECTED_GPU.lower() not in names[0].lower()):
        sys.exit("flashcore multi-device suite: needs two %s of one kind, found %s" % (EXPECTED_GPU or "GPUs", names))


def inputs(device, dtype, d, seed, b=2, s=1000, h=8):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return [torch.randn(b, s, h, d, generator=g).to(device=device, dtype=dtype) for _ in range(3)]


def fwd_bwd(q, k, v, causal, deterministic):
    q, k, v = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
    out = flashcore.attention(q, k, v, causal=causal, deterministic=deterministic)
    g = torch.Generator(device="cpu").manual_seed(99)
    dout = torch.randn(out.shape, generator=g).to(out)
    out.backward(dout)
    return out.detach(), q.grad, k.grad, v.grad


def close_to_reference(out, q, k, v, causal):
    ref, _ = attention_reference(q, k, v, causal=causal)
    err = ((out.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-2, "output far from the float64 reference (rel err %.3g)" % err


@pytest.mark.parametrize("first,second", [(0, 1), (1, 0)])
def test_every_family_on_the_other_device_in_a_fresh_process(first, second):
    """Per-process state is only exposed in a fresh process: each order runs in its own."""
    proc = subprocess.run([sys.executable, __file__, "--families", str(first), str(second)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "families ok" in proc.stdout


def families_main(first, second):
    """Each family forward + backward (default and deterministic) on `first` with `second` current,
    then on `second` with `first` current; results bitwise equal across the two devices."""
    results = {}
    for dev, current in ((first, second), (second, first)):
        torch.cuda.set_device(current)
        for dtype, d, causal in FAMILIES:
            q, k, v = inputs("cuda:%d" % dev, dtype, d, seed=d + causal)
            plain = flashcore.attention(q, k, v, causal=causal)  # the direct eager path
            out, dq, dk, dv = fwd_bwd(q, k, v, causal, deterministic=False)
            det = fwd_bwd(q, k, v, causal, deterministic=True)
            assert torch.cuda.current_device() == current, "flashcore changed torch's current device"
            torch.cuda.synchronize(dev)
            close_to_reference(out, q, k, v, causal)
            for name, grad in (("dq", dq), ("dk", dk), ("dv", dv)):
                assert torch.isfinite(grad).all(), "%s not finite on cuda:%d" % (name, dev)
            results.setdefault((dtype, d, causal), []).append(
                [t.cpu() for t in (plain, out, *det)] + [t.cpu() for t in (dq, dk, dv)])
    # Entries: plain out, autograd out, deterministic (out, dq, dk, dv), default (dq, dk, dv). All
    # bitwise equal across the devices except the default dq, whose atomics add in any order.
    for key, (a, b) in results.items():
        for i in range(9):
            if i == 6:
                torch.testing.assert_close(a[i], b[i], rtol=2e-2, atol=2e-2)
            else:
                assert torch.equal(a[i], b[i]), "%s: tensor %d differs between the two devices" % (key, i)
    print("families ok")


def test_devices_alternating_call_by_call():
    torch.cuda.set_device(0)
    per_dev = [inputs("cuda:%d" % i, torch.bfloat16, 128, seed=7) for i in range(2)]
    first = [flashcore.attention(*per_dev[i], causal=True) for i in range(2)]
    for step in range(40):
        i = step % 2
        out = flashcore.attention(*per_dev[i], causal=True)
        assert torch.equal(out, first[i]), "step %d on cuda:%d" % (step, i)
    assert torch.equal(first[0].cpu(), first[1].cpu())


def test_two_threads_on_two_devices_at_once():
    expected = [flashcore.attention(*inputs("cuda:%d" % i, torch.float16, 64, seed=3), causal=False) for i in range(2)]
    errors = []
    barrier = threading.Barrier(2)

    def worker(i):
        try:
            torch.cuda.set_device(i)
            q, k, v = inputs("cuda:%d" % i, torch.float16, 64, seed=3)
            qg = q.clone().requires_grad_(True)
            barrier.wait()
            for _ in range(50):
                out = flashcore.attention(q, k, v)
                flashcore.attention(qg, k, v, causal=True).sum().backward()
            torch.cuda.synchronize(i)
            if not torch.equal(out, expected[i]):
                errors.append("cuda:%d: output differs under concurrency" % i)
            if not torch.isfinite(qg.grad).all():
                errors.append("cuda:%d: non-finite gradient" % i)
        except Exception as e:  # reported by the main thread
            errors.append("cuda:%d: %r" % (i, e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_side_stream_per_device_and_graph_capture_off_the_current_device():
    """Kernels go to the current stream of *their* device: a launch on another stream would
    break the capture (or race the side stream's producer)."""
    torch.cuda.set_device(0)
    for dev in (1, 0):
        q, k, v = inputs("cuda:%d" % dev, torch.bfloat16, 64, seed=11)
        expected = flashcore.attention(q, k, v, causal=True)
        side = torch.cuda.Stream(device=dev)
        side.wait_stream(torch.cuda.current_stream(dev))
        with torch.cuda.stream(side):
            # The producer of q runs on the side stream just before the kernel reads it.
            q2 = q * 1.0
            out = flashcore.attention(q2, k, v, causal=True)
        side.synchronize()
        assert torch.equal(out, expected)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.device(dev):
            # torch's default capture stream belongs to the device current at its creation.
            with torch.cuda.graph(graph, stream=torch.cuda.Stream(device=dev)):
                static_out = flashcore.attention(q, k, v, causal=True)
        q.copy_(torch.randn_like(q))
        graph.replay()
        torch.cuda.synchronize(dev)
        assert torch.equal(static_out, flashcore.attention(q, k, v, causal=True))


def test_model_split_over_two_devices():
    """Pipeline / device_map="auto" style: layer 0 on cuda:0, layer 1 on cuda:1, one backward."""
    torch.manual_seed(0)
    layers = []
    for dev in range(2):
        layers.append(torch.nn.Linear(512, 3 * 512, device="cuda:%d" % dev, dtype=torch.bfloat16))

    def run(attn):
        x = torch.randn(2, 256, 512, device="cuda:0", dtype=torch.bfloat16, generator=torch.Generator("cuda:0").manual_seed(1))
        for dev, layer in enumerate(layers):
            x = x.to("cuda:%d" % dev)
            q, k, v = layer(x).view(2, 256, 3, 8, 64).unbind(2)
            x = attn(q, k, v).reshape(2, 256, 512)
        return x

    def sdpa(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True).transpose(1, 2)

    for layer in layers:
        layer.zero_grad()
    out = run(lambda q, k, v: flashcore.attention(q, k, v, causal=True))
    out.float().square().mean().backward()
    ours = [l.weight.grad.clone() for l in layers]
    for layer in layers:
        layer.zero_grad()
    ref = run(sdpa)
    ref.float().square().mean().backward()
    torch.testing.assert_close(out, ref, rtol=2e-2, atol=2e-2)
    for a, l in zip(ours, layers):
        torch.testing.assert_close(a, l.weight.grad, rtol=5e-2, atol=5e-3)


@pytest.mark.parametrize("wrap", ["ddp", "fsdp"])
def test_torchrun_training_matches_sdpa(wrap, tmp_path):
    script = os.path.join(HERE, "multi_gpu_train.py")
    losses = {}
    for attn in ("flashcore", "sdpa"):
        out = tmp_path / ("%s_%s.txt" % (wrap, attn))
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               script, "--wrap", wrap, "--attn", attn, "--out", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        losses[attn] = [float(x) for x in out.read_text().split()]
    print("%s losses flashcore %s" % (wrap, losses["flashcore"]))
    print("%s losses sdpa      %s" % (wrap, losses["sdpa"]))
    assert len(losses["flashcore"]) == len(losses["sdpa"]) >= 5
    assert losses["flashcore"][-1] < losses["flashcore"][0], "training did not reduce the loss"
    for a, b in zip(losses["flashcore"], losses["sdpa"]):
        assert abs(a - b) <= 0.03 * abs(b) + 0.02, (losses["flashcore"], losses["sdpa"])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--families":
        families_main(int(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    check_two_gpus()
    rc = pytest.main([__file__, "-q", "-rs", "-s", "-p", "no:cacheprovider"]
                     + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else []))
    sys.exit(rc)
