"""CPU tests of the attention benchmark: flags, grid, FLOPs, records, table, JSON, plot, and the
per-shape GPU path run on CPU tensors with a fake flashcore and a fake timer."""

import json
import math
import os
import subprocess
import sys
import types

import pytest
from absl import flags

import attention_backends
import attention_lib as al
import attention_timing

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(*args, environ=None):
    fv = flags.FlagValues()
    al.define_flags(fv)
    fv(["attention", *args])
    return al.config_from_flags(fv, environ={} if environ is None else environ)


def fake_record(shape, ms, err=1e-3, errors=None, backends=al.BACKENDS):
    rec = al.new_record(shape, backends)
    for b in backends:
        if errors and b in errors:
            rec["backends"][b]["error"] = errors[b]
        else:
            al.set_timing(rec, b, ms[b])
            al.set_graph_timing(rec, b, ms[b])
            al.set_host_timing(rec, b, ms[b] * 10.0, 100)
    rec["backends"].get("flashcore", {})["max_abs_err"] = err
    rec["max_abs_err"] = err
    rec["reference"] = "flash"
    al.judge_correctness(rec)
    return rec


# --- import hygiene ---------------------------------------------------------------------------

def test_module_import_pulls_no_heavy_modules():
    code = ("import sys, attention_lib; "
            "bad = [m for m in ('torch', 'triton', 'matplotlib', 'flashcore') if m in sys.modules]; "
            "assert not bad, bad")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# --- flags ------------------------------------------------------------------------------------

def test_flag_defaults():
    c = parse()
    assert c.grid == ("paper", "seed")
    assert c.dtypes == ("fp16", "bf16")
    assert c.head_dims == (64, 128)
    assert c.causals == (False, True)
    assert c.seqlens == (512, 1024, 2048, 4096, 8192, 16384)
    assert c.backends == ("flashcore", "flash", "efficient", "cudnn", "fa4")
    assert c.out_dir == "bench_out"
    assert c.tolerance == 2e-2
    assert c.warmup_ms > 0 and c.rep_ms > 0
    assert c.profile_kernels
    assert c.mode == "fwd"
    assert c.kernel_timing and c.host_calls == 2000 and c.host_budget_ms > 0
    assert c.rows == () and c.force_arch == ""
    assert c.time_budget_s == 0 and not c.warm_only and c.shard == ()
    assert c.reference == "sdpa" and parse("--reference=fp32").reference == "fp32"


def test_mode_flag():
    assert parse("--mode=bwd").mode == "bwd"
    assert parse("--mode=fwd_bwd").mode == "fwd_bwd"
    with pytest.raises(flags.IllegalFlagValueError):
        parse("--mode=backward")


def test_mode_flops_and_names():
    assert al.mode_flops(1000, "fwd") == 1000
    assert al.mode_flops(1000, "bwd") == 2500
    assert al.mode_flops(1000, "fwd_bwd") == 3500
    rec = al.new_record(SHAPE, al.BACKENDS, mode="bwd")
    assert rec["mode"] == "bwd" and rec["flops"] == int(2.5 * 4 * 4 * 16 * 4096 * 4096 * 128 // 2)
    assert al.json_name("fwd") == al.JSON_NAME and al.json_name("bwd") == "attention_bwd.json"
    assert al.plot_name("fwd_bwd") == "attention_fwd_bwd.png"


def test_flag_overrides():
    c = parse("--grid=paper", "--dtypes=bf16", "--head_dims=128", "--causal=true",
              "--seqlens=1024,2048", "--warmup_ms=5", "--rep_ms=10", "--backends=flashcore,cudnn",
              "--out_dir=/tmp/x", "--noprofile_kernels")
    assert (c.grid, c.dtypes, c.head_dims, c.causals, c.seqlens) == (
        ("paper",), ("bf16",), (128,), (True,), (1024, 2048))
    assert (c.warmup_ms, c.rep_ms, c.backends, c.out_dir) == (5.0, 10.0, ("flashcore", "cudnn"),
                                                              "/tmp/x")
    assert not c.profile_kernels
    assert parse("--causal=false").causals == (False,)


def test_head_dims_that_do_not_divide_the_hidden_size_round_the_heads_down():
    shapes = al.make_grid(parse("--grid=paper", "--dtypes=bf16", "--head_dims=80,96,192", "--causal=true",
                                "--seqlens=4096"))
    assert [(s.head_dim, s.heads, s.batch) for s in shapes] == [(80, 25, 4), (96, 21, 4), (192, 10, 4)]


@pytest.mark.parametrize("args", [
    ["--dtypes=fp8"], ["--backends=flashcore,math"], ["--head_dims=100"], ["--head_dims=264"], ["--head_dims=x"],
    ["--seqlens=0"], ["--rep_ms=0"], ["--dtypes="], ["--rows=bf16:d128:huge"], ["--rows=s"],
    ["--host_calls=-1"], ["--host_budget_ms=0"], ["--grid=huge"], ["--grid=paper,x"],
    ["--rows=features:hk"], ["--rows=cap"], ["--rows=wx"], ["--rows=gqa:h"], ["--shard=2/2"],
    ["--shard=1"], ["--time_budget_s=-1"],
])
def test_bad_flags_raise_config_error(args):
    with pytest.raises(al.ConfigError):
        parse(*args)


def test_bad_enum_flag_rejected_by_absl():
    with pytest.raises(flags.IllegalFlagValueError):
        parse("--causal=maybe")


def test_out_dir_resolution():
    assert al.resolve_out_dir(None, {}) == "bench_out"
    assert al.resolve_out_dir(None, {"TEST_UNDECLARED_OUTPUTS_DIR": "/t/out"}) == "/t/out"
    assert al.resolve_out_dir("/abs", {"TEST_UNDECLARED_OUTPUTS_DIR": "/t/out"}) == "/abs"
    assert al.resolve_out_dir(None, {"BUILD_WORKING_DIRECTORY": "/ws"}) == "/ws/bench_out"
    assert al.resolve_out_dir("/abs", {"BUILD_WORKING_DIRECTORY": "/ws"}) == "/abs"
    assert parse(environ={"TEST_UNDECLARED_OUTPUTS_DIR": "/u"}).out_dir == "/u"


# --- grid and FLOPs ---------------------------------------------------------------------------

def test_paper_grid():
    shapes = al.make_grid(parse("--grid=paper"))
    assert len(shapes) == 2 * 2 * 2 * 6
    for s in shapes:
        assert s.grid == "paper"
        assert s.batch * s.seqlen == 16384
        assert s.heads * s.head_dim == 2048
    assert {(s.seqlen, s.batch) for s in shapes} == {
        (512, 32), (1024, 16), (2048, 8), (4096, 4), (8192, 2), (16384, 1)}
    assert {s.heads for s in shapes if s.head_dim == 64} == {32}
    assert {s.heads for s in shapes if s.head_dim == 128} == {16}
    # table order: dtype, head_dim, causal, seqlen
    assert [s.sort_key() for s in shapes] == sorted(s.sort_key() for s in shapes)
    assert (shapes[0].dtype, shapes[0].head_dim, shapes[0].causal, shapes[0].seqlen) == (
        "fp16", 64, False, 512)


def test_seed_grid():
    shapes = al.make_grid(parse("--grid=seed"))
    assert [(s.dtype, s.causal) for s in shapes] == [
        ("fp16", False), ("fp16", True), ("bf16", False), ("bf16", True)]
    for s in shapes:
        assert (s.grid, s.batch, s.heads, s.seqlen, s.head_dim) == ("seed", 1, 8, 512, 64)
    assert len(al.make_grid(parse("--grid=seed", "--dtypes=bf16", "--causal=true"))) == 1


def test_all_grid_is_paper_plus_seed():
    shapes = al.make_grid(parse())
    assert len(shapes) == 48 + 4
    assert sum(s.grid == "seed" for s in shapes) == 4
    assert len(set(shapes)) == len(shapes)


def test_rows_filter_selects_a_subset():
    rows = al.make_grid(parse("--rows=seed,bf16:d128:causal:s4096"))
    got = {(s.grid, s.dtype, s.head_dim, s.causal, s.seqlen) for s in rows}
    assert got == {("seed", "fp16", 64, False, 512), ("seed", "fp16", 64, True, 512),
                   ("seed", "bf16", 64, False, 512), ("seed", "bf16", 64, True, 512),
                   ("paper", "bf16", 128, True, 4096)}
    # tokens combine with the other grid flags: these only narrow the candidates
    rows = al.make_grid(parse("--grid=paper", "--dtypes=fp16", "--rows=d64:full,s16384:causal"))
    assert {(s.head_dim, s.causal, s.seqlen) for s in rows} == (
        {(64, False, s) for s in al.DEFAULT_SEQLENS} | {(64, True, 16384), (128, True, 16384)})
    assert al.make_grid(parse("--rows=paper:seed")) == []
    assert len(al.make_grid(parse("--rows="))) == 52  # empty spec list: no filter


def test_long_seqlen_keeps_batch_one():
    (s,) = al.make_grid(parse("--grid=paper", "--seqlens=32768", "--dtypes=fp16",
                              "--head_dims=64", "--causal=false"))
    assert (s.batch, s.heads) == (1, 32)


def test_flops_formula():
    assert al.attention_flops(1, 1, 2, 3, 4, False) == 96
    assert al.attention_flops(1, 1, 2, 3, 4, True) == 48
    # paper grid: 4 * 16k tokens * S * hidden, independent of head_dim
    for s in al.make_grid(parse("--grid=paper", "--causal=false")):
        assert al.attention_flops(s.batch, s.heads, s.seqlen, s.seqlen, s.head_dim, False) == (
            4 * 16384 * s.seqlen * 2048)
    assert al.tflops(2e12, 1000.0) == pytest.approx(2.0)
    assert al.tflops(1e12, 1.0) == pytest.approx(1000.0)
    assert al.tflops(1e12, None) is None
    assert al.tflops(1e12, 0.0) is None
    assert al.tflops(1e12, float("nan")) is None


# --- records ----------------------------------------------------------------------------------

SHAPE = al.Shape("paper", "fp16", 128, True, 4096, 4, 16)
MS = {"flashcore": 1.0, "flash": 1.5, "efficient": 2.0, "cudnn": 1.25, "fa4": 0.8}


def test_record_fields_and_ratio():
    rec = fake_record(SHAPE, MS)
    assert rec["flops"] == 4 * 4 * 16 * 4096 * 4096 * 128 // 2
    assert rec["backends"]["flashcore"]["tflops"] == pytest.approx(rec["flops"] / 1e-3 / 1e12)
    assert rec[al.RATIO_KEY] == pytest.approx(1.25)
    assert rec["correct"] is True
    for key in ("grid", "dtype", "head_dim", "causal", "seqlen", "batch", "heads"):
        assert key in rec


def test_kernel_and_host_ratios():
    ms = {"flashcore": 1.0, "flash": 1.5, "efficient": 2.0, "cudnn": 1.25, "fa4": 0.8}
    rec = fake_record(SHAPE, ms)
    assert rec["backends"]["flashcore"]["graph_tflops"] == pytest.approx(rec["flops"] / 1e-3 / 1e12)
    assert rec["kernel_flashcore_over_cudnn"] == pytest.approx(1.25)
    assert rec["kernel_flashcore_over_flash"] == pytest.approx(1.5)
    assert rec["backends"]["flashcore"]["host_us"] == 10.0
    assert rec["host_flashcore_over_cudnn"] == pytest.approx(10.0 / 12.5)
    assert rec["host_flashcore_over_flash"] == pytest.approx(10.0 / 15.0)
    rec = fake_record(SHAPE, ms, errors={"cudnn": "x"})
    assert rec["kernel_flashcore_over_cudnn"] is None and rec["host_flashcore_over_cudnn"] is None
    assert rec["kernel_flashcore_over_flash"] == pytest.approx(1.5)


def test_host_calls_follow_the_budget():
    c = parse("--host_calls=2000", "--host_budget_ms=300")
    assert al.host_calls_for(c, 0.01) == 2000
    assert al.host_calls_for(c, 3.0) == 100
    assert al.host_calls_for(c, 1000.0) == 10
    assert al.host_calls_for(c, None) == 2000
    assert al.host_calls_for(parse("--host_calls=0"), 0.01) == 0


def test_host_time_is_wall_time_per_call_with_one_sync(monkeypatch):
    syncs, calls = [], []
    monkeypatch.setattr(attention_timing, "_sync", lambda: syncs.append(len(calls)))
    ticks = iter([10.0, 10.5])
    us = al.host_time_us("flashcore", lambda: calls.append(1), 100, now=lambda: next(ticks))
    assert us == pytest.approx(0.5 / 100 * 1e6)
    warm = len(calls) - 100
    assert warm >= 3 and syncs == [warm, warm + 100]  # synced after warm-up and after the last call


def test_ratio_missing_when_cudnn_failed_or_absent():
    rec = fake_record(SHAPE, MS, errors={"cudnn": "RuntimeError: unsupported"})
    assert rec[al.RATIO_KEY] is None
    assert rec["backends"]["cudnn"]["tflops"] is None
    rec = fake_record(SHAPE, MS, backends=("flashcore", "flash"))
    assert rec[al.RATIO_KEY] is None


@pytest.mark.parametrize("err,correct", [
    (0.0, True), (2e-2, True), (2.01e-2, False), (float("nan"), False), (float("inf"), False)])
def test_correctness_threshold(err, correct):
    assert fake_record(SHAPE, MS, err=err)["correct"] is correct


def test_flashcore_error_is_a_failure():
    rec = fake_record(SHAPE, MS, err=None, errors={"flashcore": "ValueError: boom"})
    assert rec["correct"] is False
    (line,) = al.failures([rec])
    assert "ValueError: boom" in line and "S4096" in line
    # a torch backend failing is a result, not a failure
    assert al.failures([fake_record(SHAPE, MS, errors={"cudnn": "x"})]) == []


def test_host_bound():
    assert al.host_bound({"ms": 0.05, "profiled_gpu_ms": 0.01})
    assert not al.host_bound({"ms": 0.48, "profiled_gpu_ms": 0.478})
    assert not al.host_bound({"ms": 0.05, "profiled_gpu_ms": None})
    assert not al.host_bound({"ms": None, "profiled_gpu_ms": 0.01})


def test_copy_kernel_names():
    names = ["flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64>>",
             "void at::native::elementwise_kernel<128, 2, direct_copy_kernel_cuda>",
             "Memcpy DtoD (Device -> Device)",
             "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16"]
    assert al.copy_kernel_names(names) == names[1:3]


# --- table ------------------------------------------------------------------------------------

def test_format_table():
    recs = [fake_record(SHAPE, MS),
            fake_record(al.Shape("paper", "fp16", 128, True, 1024, 16, 16), MS, err=0.5,
                        errors={"efficient": "RuntimeError: no kernel"}),
            fake_record(al.Shape("seed", "fp16", 64, False, 512, 1, 8), MS)]
    recs[0]["backends"]["cudnn"]["copy_kernels"] = ["Memcpy DtoD"]
    recs[2]["backends"]["flashcore"]["profiled_gpu_ms"] = 0.1  # do_bench said 1.0 ms
    recs[2]["backends"]["flash"]["profiled_gpu_ms"] = 1.4  # 1.5 ms: within 1.5x
    table = al.format_table(recs, al.BACKENDS)
    lines = table.splitlines()
    print(table)
    assert len(lines) == 2 + 3
    header = lines[0].split()
    assert header[:6] == ["dtype", "D", "causal", "S", "B", "H"]
    for b in al.BACKENDS:
        assert f"{b} TF/s" in lines[0]
    assert "fc/cudnn" in lines[0] and "max_err" in lines[0]
    for col in ("fc/FA2", "host fc/cudnn", "host fc/FA2", "flashcore kTF/s", "cudnn us/call"):
        assert col in lines[0]
    # sorted: D64 seed row first, then S1024, S4096
    assert lines[2].split()[:6] == ["fp16", "64", "no", "512", "1", "8"]
    assert lines[2].endswith("host-bound(flashcore)")
    assert lines[3].split()[:6] == ["fp16", "128", "yes", "1024", "16", "16"]
    assert "err" in lines[3].split() and "FAIL" in lines[3]
    tf = recs[0]["backends"]["flashcore"]["tflops"]
    assert f"{tf:.1f}" in lines[4] and "1.25" in lines[4] and "copy!(cudnn)" in lines[4]
    # numeric columns are right-aligned under their headers
    end = lines[0].index("fc/cudnn") + len("fc/cudnn")
    assert all(l[end - 4:end] == "1.25" for l in lines[2:])


def test_format_table_empty_and_nan():
    assert len(al.format_table([], al.BACKENDS).splitlines()) == 2
    table = al.format_table([fake_record(SHAPE, MS, err=float("nan"))], ["flashcore"])
    assert "nan" in table and "FAIL" in table


# --- JSON -------------------------------------------------------------------------------------

def test_write_json_roundtrip(tmp_path):
    recs = [fake_record(SHAPE, MS), fake_record(SHAPE, MS, err=float("nan"),
                                                errors={"cudnn": "RuntimeError: nope"})]
    env = {"gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11.0", "triton": "3.6.0", "cudnn": 91002,
           "date": "2026-01-01T00:00:00+00:00", "flashcore_build_info": {"sm": [90], "x": (1, 2)}}
    path = str(tmp_path / al.JSON_NAME)
    al.write_json(path, env, parse(), recs)
    with open(path) as f:
        text = f.read()
    doc = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON: {c}"))
    assert doc["env"]["gpu"] == "NVIDIA H100 80GB HBM3"
    assert doc["env"]["flashcore_build_info"] == {"sm": [90], "x": [1, 2]}
    assert doc["config"]["dtypes"] == ["fp16", "bf16"]
    assert len(doc["records"]) == 2
    r0, r1 = doc["records"]
    assert r0["backends"]["flashcore"]["ms"] == 1.0
    assert r0["backends"]["cudnn"]["tflops"] == pytest.approx(recs[0]["backends"]["cudnn"]["tflops"])
    assert r0["correct"] is True and r0[al.RATIO_KEY] == pytest.approx(1.25)
    assert r1["max_abs_err"] == "nan" and r1["correct"] is False
    assert r1["backends"]["cudnn"] == {"ms": None, "tflops": None, "error": "RuntimeError: nope",
                                       "max_abs_err": None, "kernels": None, "copy_kernels": None,
                                       "profiled_gpu_ms": None, "kernel_us": None,
                                       "profiled_tflops": None, "graph_ms": None, "graph_tflops": None, "host_us": None,
                                       "host_calls": None, "within_tolerance": None,
                                       "unsupported": None}
    assert r0["kernel_flashcore_over_cudnn"] == pytest.approx(1.25)
    assert r0["host_flashcore_over_flash"] == pytest.approx(10.0 / 15.0)
    assert len(doc["failures"]) == 1
    assert not os.path.exists(path + ".tmp")


# --- plot -------------------------------------------------------------------------------------

def _needs_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not installed in this venv (the GPU machine has it)")


def test_plot(tmp_path):
    _needs_matplotlib()
    recs = []
    for s in al.make_grid(parse()):
        ms = {b: (1 + i) * s.seqlen / 4096 for i, b in enumerate(al.BACKENDS)}
        recs.append(fake_record(s, ms, errors={"cudnn": "x"} if s.seqlen == 16384 else None))
    path = str(tmp_path / al.PLOT_NAME)
    al.plot(path, recs, al.BACKENDS, title="fake")
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


# --- the per-shape GPU path, on CPU -----------------------------------------------------------

@pytest.fixture
def cpu_bench(monkeypatch):
    """Runs run_shape/main on CPU tensors: torch's CPU flash SDPA is the reference (efficient and
    cuDNN raise on CPU, which exercises the error path), flashcore is faked with SDPA math, and
    do_bench is replaced by a fixed timing."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    state = {"scale_error": 0.0, "calls": 0}

    def attention(q, k, v, *, causal=False, softmax_scale=None, return_lse=False, deterministic=False):
        state["calls"] += 1
        assert q.is_contiguous() and q.dim() == 4  # (B, S, H, D), no copy was made for it
        out = F.scaled_dot_product_attention(q.transpose(1, 2).float(), k.transpose(1, 2).float(),
                                             v.transpose(1, 2).float(), is_causal=causal)
        out = out + state["scale_error"]
        return out.transpose(1, 2).contiguous().to(q.dtype)

    fake = types.ModuleType("flashcore")
    fake.attention = attention
    fake.build_info = lambda: {"fake": True}
    monkeypatch.setitem(sys.modules, "flashcore", fake)
    monkeypatch.setitem(sys.modules, "flash_attn", None)  # FlashAttention-4 not importable
    monkeypatch.setattr(attention_backends, "DEVICE", "cpu")
    monkeypatch.setattr(al, "time_ms", lambda backend, fn, w, r: 2.0 if backend == "flashcore"
                        else 3.0)
    monkeypatch.setattr(al, "graph_time_ms", lambda backend, fn, r: 1.0 if backend == "flashcore"
                        else 1.5)
    return state


def test_run_shape_on_cpu(cpu_bench):
    config = parse("--noprofile_kernels", "--host_calls=40")
    shape = al.Shape("seed", "bf16", 64, True, 128, 2, 4)
    rec = al.run_shape(shape, config, seed=0)
    assert rec["reference"] == "flash"
    assert rec["correct"] is True
    assert 0 <= rec["max_abs_err"] < 2e-2
    assert rec["backends"]["flash"]["max_abs_err"] == 0.0
    for b in ("efficient", "cudnn"):
        assert rec["backends"][b]["ms"] is None
        assert "RuntimeError" in rec["backends"][b]["error"]
    assert rec["backends"]["flashcore"]["ms"] == 2.0
    assert rec["backends"]["flashcore"]["tflops"] == pytest.approx(rec["flops"] / 2e-3 / 1e12)
    assert rec[al.RATIO_KEY] is None  # cudnn raised
    assert rec["backends"]["flashcore"]["graph_ms"] == 1.0
    assert rec["kernel_flashcore_over_flash"] == pytest.approx(1.5)
    # host-bound timing ran for real (CPU wall time of the fake and of torch's CPU flash SDPA)
    fc, fl = rec["backends"]["flashcore"], rec["backends"]["flash"]
    assert fc["host_us"] > 0 and fl["host_us"] > 0 and fc["host_calls"] == 40
    assert rec["host_flashcore_over_flash"] == pytest.approx(fc["host_us"] / fl["host_us"])
    assert rec["forced_arch"] is None


def test_forced_arch_checks_but_does_not_time_flashcore(cpu_bench, monkeypatch):
    forced = []
    fake_attention = types.SimpleNamespace(_forced_arch=None,
                                           _set_forced_arch=lambda a: forced.append(a))
    sys.modules["flashcore"]._attention = fake_attention
    monkeypatch.setitem(sys.modules, "flashcore._attention", fake_attention)
    config = parse("--noprofile_kernels", "--force_arch=sm80_ptx", "--host_calls=20")
    rec = al.run_shape(al.Shape("seed", "fp16", 64, False, 64, 1, 2), config, seed=3)
    assert forced == ["sm80_ptx"] and rec["forced_arch"] == "sm80_ptx"
    assert rec["correct"] is True and rec["max_abs_err"] is not None
    fc = rec["backends"]["flashcore"]
    assert fc["ms"] is None and fc["graph_ms"] is None and fc["host_us"] is None
    assert rec["backends"]["flash"]["ms"] == 3.0  # the torch backends are still timed
    assert "forced:sm80_ptx(not timed)" in al.format_table([rec], config.backends)


def test_main_on_cpu_flags_wrong_output(cpu_bench, tmp_path):
    config = parse("--grid=seed", "--dtypes=fp16", "--noprofile_kernels", "--host_calls=10",
                   f"--out_dir={tmp_path}")
    lines = []
    assert al.main(config, log=lines.append) == 0
    with open(tmp_path / al.JSON_NAME) as f:
        doc = json.load(f)
    assert [r["correct"] for r in doc["records"]] == [True, True]
    assert doc["env"]["flashcore_build_info"] == {"fake": True}
    assert any("flashcore TF/s" in l for l in lines)

    cpu_bench["scale_error"] = 0.05
    assert al.main(config, log=lines.append) == 1
    with open(tmp_path / al.JSON_NAME) as f:
        doc = json.load(f)
    assert [r["correct"] for r in doc["records"]] == [False, False]
    assert len(doc["failures"]) == 2
    assert any(l.startswith("FAIL ") for l in lines)


@pytest.mark.parametrize("mode", ["bwd", "fwd_bwd"])
def test_run_shape_backward_modes_on_cpu(cpu_bench, mode):
    config = parse("--noprofile_kernels", f"--mode={mode}")
    shape = al.Shape("seed", "bf16", 64, True, 128, 2, 4)
    rec = al.run_shape(shape, config, seed=0)
    assert rec["mode"] == mode and rec["reference"] == "flash"
    assert rec["correct"] is True, rec["max_abs_err"]
    assert rec["backends"]["flash"]["max_abs_err"] == 0.0
    assert 0 < rec["max_abs_err"] < 2e-2
    calls_per_fn = cpu_bench["calls"]
    assert calls_per_fn >= 1  # the fake flashcore's forward ran (once for bwd, per call for fwd_bwd)
    flops = al.attention_flops(2, 4, 128, 128, 64, True)
    assert rec["flops"] == al.mode_flops(flops, mode)
    assert rec["backends"]["flashcore"]["tflops"] == pytest.approx(rec["flops"] / 2e-3 / 1e12)


def test_backward_mode_catches_wrong_gradients(cpu_bench, monkeypatch):
    torch = pytest.importorskip("torch")
    import flashcore as fake
    real = fake.attention

    def wrong_grad(q, k, v, **kw):
        out = real(q, k, v, **kw)
        return out + 0.1 * (q - q.detach())  # same values, dq off by 0.1 * dout
    monkeypatch.setattr(fake, "attention", wrong_grad)
    rec = al.run_shape(al.Shape("seed", "fp16", 64, False, 64, 1, 2), parse("--noprofile_kernels", "--mode=bwd"),
                       seed=3)
    assert rec["correct"] is False and rec["max_abs_err"] > 2e-2


def test_missing_flashcore_is_recorded(cpu_bench, monkeypatch):
    monkeypatch.setitem(sys.modules, "flashcore", None)  # import raises ImportError
    rec = al.run_shape(al.Shape("seed", "fp16", 64, False, 64, 1, 2),
                       parse("--noprofile_kernels", "--host_calls=10"), seed=1)
    assert "flashcore" in rec["backends"]["flashcore"]["error"]
    assert rec["correct"] is False
    assert rec["backends"]["flash"]["ms"] == 3.0


def test_fp32_reference_matches_sdpa():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    q, k, v = (torch.randn(2, 32, 3, 16) for _ in range(3))
    for causal in (False, True):
        shape = al.Shape("seed", "fp16", 16, causal, 32, 2, 3)
        ref = al.fp32_reference(al.Inputs(q, k, v), shape)  # (B, S, H, D), the inputs' layout
        want = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2), is_causal=causal).transpose(1, 2)
        assert (ref - want).abs().max().item() < 1e-5


# --- the binary -------------------------------------------------------------------------------

def test_binary_rejects_bad_flags():
    script = os.path.join(HERE, "attention.py")
    if not os.path.exists(script):
        pytest.skip("attention.py is not beside the test")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    res = subprocess.run([sys.executable, script, "--dtypes=fp8"], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 1, res.stderr
    assert "unknown dtype 'fp8'" in res.stderr
    res = subprocess.run([sys.executable, script, "--helpfull"], capture_output=True, text=True,
                         env=env)
    assert "--seqlens" in res.stdout + res.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
