"""CPU-only estimate of flashcore.attention's Python host path (no GPU needed).

Loads a copy of <pkgroot>/flashcore/_attention.py with its CUDA-only pieces patched out (the
device-type checks accept CPU tensors, the stream/device queries return 0, _C.fwd is a no-op, the
custom op is re-registered under another namespace) and times back-to-back calls on CPU tensors
of the seed shape (B1 H8 S512 D64 fp16). What it measures: checks, dispatch, allocations and
argument marshalling in Python; not the pybind11 call, the CUDA launch or CUDA allocations.

  python tools/bench/host_path_cpu.py <dir holding flashcore/ with _C.so> <label> [profile]

Used for docs/PERF.md section 3 (old vs new path: pass a tree with the old _attention.py).
"""
import sys, time, types, importlib
root, label = sys.argv[1], sys.argv[2]
src = open(root + "/flashcore/_attention.py").read()
src = src.replace('q.device.type != "cuda"', 'q.device.type != "cpu"')
src = src.replace("q.is_cuda and k.is_cuda and v.is_cuda", "True")
src = src.replace("torch.cuda.current_device()", "0").replace("torch.cuda.current_stream(device).cuda_stream", "0")
sys.path.insert(0, root)
import torch
import flashcore  # real package (loads _C for build_info)
calls = []
fake = types.SimpleNamespace(fwd=lambda *a: None, build_info=flashcore._attention._C.build_info)
mod = types.ModuleType("flashcore._attention_cpu")
mod.__dict__["__name__"] = "flashcore._attention_cpu"
code = src.replace('"flashcore::attention_fwd"', '"flashcorecpu%s::attention_fwd"' % label).replace(
    "torch.ops.flashcore.", "torch.ops.flashcorecpu%s." % label).replace('register_autograd("flashcore::', 'register_autograd("flashcorecpu%s::' % label)
exec(compile(code, "attn", "exec"), mod.__dict__)
mod._C = fake
mod._device_arch = lambda d: "sm90a"
if hasattr(mod, "_raw_stream"): mod._raw_stream = lambda d: 0
q = torch.randn(1, 512, 8, 64, dtype=torch.float16)
k = torch.randn(1, 512, 8, 64, dtype=torch.float16)
v = torch.randn(1, 512, 8, 64, dtype=torch.float16)
f = mod.attention
for _ in range(2000): f(q, k, v)
best = []
for rep in range(5):
    n = 20000
    t = time.perf_counter()
    for _ in range(n): f(q, k, v)
    best.append((time.perf_counter() - t) / n * 1e6)
print("%s: %.2f us/call (best of 5; runs %s)" % (label, min(best), ", ".join("%.2f" % b for b in best)))
if len(sys.argv) > 3:
    import cProfile, pstats
    cProfile.run("for _ in range(20000): f(q, k, v)", "/tmp/fwdperi_prof")
    pstats.Stats("/tmp/fwdperi_prof").sort_stats("tottime").print_stats(12)
