"""CPU tests of the attention benchmark's feature rows (the --rows grammar, the features grid,
needed-FLOP counts, the fp32 feature reference) and of the optional FlashAttention-4 backend:
present (a fake flash_attn.cute) and absent (said once, columns left out)."""

import json
import os
import sys

import pytest

import attention_lib as al
from attention_test_fakes import attend, install, parse


def keys(shapes):
    return {(s.dtype, s.head_dim, s.causal, s.seqlen, s.batch, s.heads, s.kv_heads, s.window,
             s.softcap, s.varlen) for s in shapes}


# --- grammar and grid ------------------------------------------------------------------------

def test_grid_flag_is_a_list():
    assert parse("--grid=paper,features").grid == ("paper", "features")
    assert parse("--grid=all,features").grid == ("paper", "seed", "features")
    assert parse("--shard=1/3").shard == (1, 3)
    assert parse("--time_budget_s=30", "--warm_only").time_budget_s == 30.0


def test_new_row_tokens_parse():
    rows = al.parse_rows(["features:gqa:hk8:h32", "w4096:win", "cap30:CAP30.5", "varlen:mixed",
                          "equal:dense:plain:mha:b4"])
    assert rows[0] == ("features", "gqa", "hk8", "h32")
    assert rows[2] == ("cap30", "cap30.5")


def test_features_grid_rows():
    shapes = al.make_grid(parse("--grid=features", "--dtypes=bf16", "--head_dims=128"))
    # GQA + MHA at 4k and 16k, window + plain 16k, and per causal: softcap + plain 4k,
    # varlen equal + its padded batch (the plain 4k row again: deduped), varlen mixed
    assert len(shapes) == 4 + 2 + 2 * 4
    assert all(s.grid == "features" for s in shapes)
    assert keys(al.make_grid(parse("--grid=features", "--dtypes=bf16", "--head_dims=128",
                                   "--rows=gqa"))) == {
        ("bf16", 128, True, 4096, 4, 32, 8, -1, 0.0, ""), ("bf16", 128, True, 16384, 1, 32, 8, -1, 0.0, "")}
    (w,) = al.make_grid(parse("--grid=features", "--dtypes=bf16", "--rows=d64:w4096"))
    assert (w.seqlen, w.batch, w.heads, w.causal, w.window_size()) == (16384, 1, 32, True, (4096, 0))
    mixed = al.make_grid(parse("--grid=features", "--dtypes=bf16", "--head_dims=64", "--rows=mixed"))
    assert {(s.causal, s.batch, s.varlen) for s in mixed} == {(False, 64, "mixed"), (True, 64, "mixed")}
    plain = al.make_grid(parse("--grid=features", "--dtypes=bf16", "--head_dims=64", "--rows=plain"))
    # at d64 the MHA rows (H32) are the plain S4k causal and S16k causal rows themselves
    assert all(not s.features() for s in plain) and len(plain) == 3
    caps = al.make_grid(parse("--grid=features", "--causal=true", "--rows=cap30"))
    assert {(s.dtype, s.head_dim, s.softcap) for s in caps} == {
        (dt, d, 30.0) for dt in ("fp16", "bf16") for d in (64, 128)}


def test_models_grid_rows():
    import attention_models as am
    shapes = al.make_grid(parse("--grid=models"))
    assert len(shapes) == len(am.MODEL_LAYERS)
    assert {s.model for s in shapes} == {m.name for m in am.MODEL_LAYERS}
    for s in shapes:
        assert (s.grid, s.dtype, s.causal, s.seqlen, s.batch) == ("models", "bf16", True, 8192, 2)
        m = next(m for m in am.MODEL_LAYERS if m.name == s.model)
        assert (s.head_dim, s.heads, s.kv_heads, s.window, s.softcap, s.sink) == (
            m.head_dim, m.heads, m.heads_kv, m.window, m.softcap, m.sink)
        assert al.feature_baseline(s) is None  # judged against the other backends only
    sinks = al.make_grid(parse("--grid=models", "--rows=sink"))
    assert {s.model for s in sinks} == {"gpt-oss-full", "gpt-oss-sliding"}
    (oss,) = al.make_grid(parse("--grid=models", "--rows=sink:w128"))
    assert oss.features() == ["gqa64/8", "win128", "sink"] and oss.window_size() == (128, 0)
    rec = al.new_record(oss, ("flashcore",))
    assert al.shape_label(rec).startswith("gpt-oss-sliding: bf16 D64 causal S8192 B2 H64")
    assert "gpt-oss-sliding,gqa64/8,win128,sink" in al.format_table([rec], ("flashcore",))
    # other grids are unchanged by the models grid beside them
    assert al.make_grid(parse("--grid=paper,models", "--rows=paper")) == al.make_grid(parse("--grid=paper"))


def test_features_grid_dedupes_against_the_paper_grid():
    both = al.make_grid(parse("--grid=paper,features", "--dtypes=bf16", "--head_dims=64",
                              "--causal=true", "--seqlens=4096,16384"))
    # the plain S4k/S16k causal rows and d64's MHA H32 rows are the paper rows, run once
    assert sum(1 for s in both if not s.features() and s.seqlen == 4096) == 1
    assert {s.grid for s in both if not s.features()} == {"paper"}


def test_shard_splits_the_rows():
    full = al.make_grid(parse("--grid=features", "--dtypes=bf16"))
    parts = [al.make_grid(parse("--grid=features", "--dtypes=bf16", f"--shard={i}/3")) for i in range(3)]
    assert sum(parts, []) == full and all(parts)
    paper = [al.make_grid(parse("--grid=paper", "--seqlens=1024,2048,4096,8192,16384", f"--shard={i}/8"))
             for i in range(8)]
    for part in paper:  # one configuration per block: FlashAttention-4 compiles it once
        assert len(part) == 5 and len({(s.dtype, s.head_dim, s.causal) for s in part}) == 1


def test_feature_baselines():
    sh = al.make_grid(parse("--grid=features", "--dtypes=bf16", "--head_dims=128", "--causal=true"))
    by_key = {al.shape_key(s): s for s in sh}
    for s in sh:
        base = al.feature_baseline(s)
        if not s.features():
            assert base is None
            continue
        b = by_key[base]  # every feature row's plain row is in the grid
        if s.varlen == "mixed":
            assert b.varlen == "equal"
        else:
            assert not b.features() and (b.seqlen, b.batch, b.heads) == (s.seqlen, s.batch, s.heads)


# --- FLOPs -----------------------------------------------------------------------------------

def test_visible_pairs():
    assert al.visible_pairs(4, 4, -1, -1) == 16
    assert al.visible_pairs(4, 4, -1, 0) == 10
    assert al.visible_pairs(4, 4, 1, 0) == 1 + 2 + 2 + 2
    assert al.visible_pairs(2, 4, -1, 0) == 3 + 4  # bottom-right aligned


def test_needed_flops():
    d, s, w = 128, 16384, 4096
    win = al.Shape("features", "bf16", d, True, s, 1, 16, window=w)
    pairs = w * (w + 1) // 2 + (s - w) * (w + 1)
    assert al.shape_flops(win) == 4 * 16 * d * pairs
    plain = al.Shape("paper", "bf16", d, True, s, 1, 16)
    assert al.shape_flops(plain) == al.attention_flops(1, 16, s, s, d, True)
    gqa = al.Shape("features", "bf16", d, True, 4096, 4, 32, heads_kv=8)
    assert al.shape_flops(gqa) == al.attention_flops(4, 32, 4096, 4096, d, True)  # query heads
    equal = al.Shape("features", "bf16", d, False, 4096, 4, 16, varlen="equal")
    assert al.shape_flops(equal) == al.attention_flops(4, 16, 4096, 4096, d, False)
    mixed = al.Shape("features", "bf16", d, True, 4000, 64, 16, varlen="mixed")
    lengths = al.varlen_lengths(mixed)
    assert lengths == al.varlen_lengths(mixed)  # seeded
    assert len(lengths) == 64 and min(lengths) >= 100 and max(lengths) <= 4000 and len(set(lengths)) > 32
    assert al.shape_flops(mixed) == sum(al.attention_flops(1, 16, n, n, d, True) for n in lengths)
    rec = al.new_record(mixed, ("flashcore",), mode="bwd")
    assert rec["flops"] == int(2.5 * al.shape_flops(mixed)) and rec["tokens"] == sum(lengths)
    assert rec["features"] == ["varlen64x100-4000"] and rec["varlen_lengths"] == lengths


# --- the fp32 feature reference --------------------------------------------------------------

@pytest.mark.parametrize("chunk", [1 << 28, 24 * 24])  # all heads at once; one head per step
@pytest.mark.parametrize("kw", [dict(heads_kv=2), dict(window=5), dict(softcap=3.0),
                                dict(heads_kv=1, window=3, softcap=2.0, causal=False)])
def test_fp32_reference_features(kw, chunk, monkeypatch):
    torch = pytest.importorskip("torch")
    import attention_backends
    monkeypatch.setattr(attention_backends, "REF_CHUNK_ELEMENTS", chunk)
    kw = dict(kw)
    causal = kw.pop("causal", True)
    shape = al.Shape("features", "bf16", 16, causal, 24, 2, 4, **kw)
    q = torch.randn(2, 24, 4, 16)
    k, v = (torch.randn(2, 24, shape.kv_heads, 16) for _ in range(2))
    want = attend(q, k, v, causal, shape.window_size(), shape.softcap)
    got = al.fp32_reference(al.Inputs(q, k, v), shape)
    assert (got - want).abs().max().item() < 1e-5
    # gradients through the same math
    dout = torch.randn_like(q)
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v)]
    wg = torch.autograd.grad(attend(*leaves, causal, shape.window_size(), shape.softcap), leaves, dout)
    gg = al.fp32_reference(al.Inputs(q, k, v), shape, dout)
    for a, b in zip(gg, wg):
        assert (a - b).abs().max().item() < 1e-4


@pytest.mark.parametrize("kw", [dict(), dict(heads_kv=2, window=3)])
def test_fp32_reference_with_a_sink(kw):
    torch = pytest.importorskip("torch")
    shape = al.Shape("models", "bf16", 16, True, 24, 2, 4, sink=True, **kw)
    q = torch.randn(2, 24, 4, 16)
    k, v = (torch.randn(2, 24, shape.kv_heads, 16) for _ in range(2))
    sink = torch.randn(4)
    want = attend(q, k, v, True, shape.window_size(), 0.0, sink)
    got = al.fp32_reference(al.Inputs(q, k, v, sink=sink), shape)
    assert (got - want).abs().max().item() < 1e-5
    # the sink is a key with a zero value: it lowers every row's weights, never adds to out
    no_sink = attend(q, k, v, True, shape.window_size())
    assert (want.norm(dim=-1) < no_sink.norm(dim=-1) + 1e-6).all()
    dout = torch.randn_like(q)
    leaves = [t.clone().requires_grad_(True) for t in (q, k, v, sink)]
    wg = torch.autograd.grad(attend(*leaves[:3], True, shape.window_size(), 0.0, leaves[3]), leaves, dout)
    gg = al.fp32_reference(al.Inputs(q, k, v, sink=sink), shape, dout)
    assert len(gg) == 4 and gg[3].shape == (4,) and gg[3].abs().max().item() > 0
    for a, b in zip(gg, wg):
        assert (a - b).abs().max().item() < 1e-4


def test_fp32_reference_packed():
    torch = pytest.importorskip("torch")
    shape = al.Shape("features", "bf16", 16, True, 20, 3, 2, heads_kv=1, varlen="equal")
    inp = al.Inputs(*(torch.randn(60, h, 16) for h in (2, 1, 1)), lengths=[20, 20, 20])
    got = al.fp32_reference(inp, shape)
    for b in range(3):
        sl = slice(20 * b, 20 * b + 20)
        want = attend(inp.q[None, sl], inp.k[None, sl], inp.v[None, sl], True)[0]
        assert (got[sl] - want).abs().max().item() < 1e-5


# --- feature rows through the per-row path, on CPU -------------------------------------------

@pytest.fixture
def fakes(monkeypatch):
    pytest.importorskip("torch")
    return install(monkeypatch, {}, fa4=True)


CONFIG = ("--noprofile_kernels", "--host_calls=5")


@pytest.mark.parametrize("mode", ["fwd", "bwd"])
@pytest.mark.parametrize("kw", [dict(heads_kv=2), dict(window=8), dict(softcap=30.0),
                                dict(varlen="equal"), dict(varlen="mixed")])
def test_feature_rows_on_cpu(fakes, monkeypatch, mode, kw):
    monkeypatch.setattr(al, "VARLEN_MIXED", (3, 10, 40), raising=False)
    import attention_config
    monkeypatch.setattr(attention_config, "VARLEN_MIXED", (3, 10, 40))
    batch = 3 if kw.get("varlen") == "mixed" else 2
    shape = al.Shape("features", "bf16", 32, True, 40, batch, 4, **kw)
    rec = al.run_shape(shape, parse(*CONFIG, f"--mode={mode}"), seed=1)
    assert rec["reference"] == "math_fp32"
    assert rec["correct"] is True, rec["backends"]["flashcore"]
    fa4 = rec["backends"]["fa4"]
    assert fa4["within_tolerance"] is True
    if mode in al.KERNEL_TIMED_MODES:
        assert fa4["graph_ms"] == 1.5 and rec["kernel_flashcore_over_fa4"] == pytest.approx(1.5)
    else:  # the backward is timed eager only (attention_lib.KERNEL_TIMED_MODES says why)
        assert fa4["graph_ms"] is None and "graph_error" not in fa4
    for b in ("flash", "efficient", "cudnn"):
        e = rec["backends"][b]
        if kw.get("heads_kv"):
            assert e["unsupported"] is None  # GQA: SDPA runs it (enable_gqa) or raises
        else:
            assert e["unsupported"] and e["ms"] is None and e["error"] is None
    if kw.get("varlen"):
        assert fakes["varlen_calls"] >= 1 and fakes["fa4_varlen_calls"] >= 1
    table = al.format_table([rec], parse().backends)
    assert "fc/FA4" in table and "host fc/FA4" in table and "n/a" in table or kw.get("heads_kv")
    assert ",".join(shape.features()) in table


@pytest.mark.parametrize("mode", ["fwd", "bwd"])
def test_sink_row_on_cpu(fakes, mode):
    shape = al.Shape("models", "bf16", 32, True, 40, 2, 4, heads_kv=2, window=8, sink=True, model="m")
    rec = al.run_shape(shape, parse(*CONFIG, f"--mode={mode}"), seed=3)
    assert rec["reference"] == "math_fp32" and rec["correct"] is True, rec["backends"]["flashcore"]
    assert rec["backends"]["fa4"]["within_tolerance"] is True
    for b in ("flash", "efficient", "cudnn"):
        assert rec["backends"][b]["unsupported"] and rec["backends"][b]["ms"] is None
        assert "sink" in al.unsupported_reason(b, al.Shape("models", "bf16", 32, True, 40, 2, 4, sink=True))
    # both backends got the sink tensor itself; in bwd mode it is a leaf, so dsink is compared too
    sinks = [kw["learnable_sink"] for kw in fakes["kwargs"]] + [kw["learnable_sink"] for kw in fakes["fa4_kwargs"]]
    assert sinks and all(t is not None and t.shape == (4,) for t in sinks)
    assert all(t.requires_grad == (mode != "fwd") for t in sinks)
    # a wrong dsink alone fails the row
    if mode == "bwd":
        import attention_backends
        inp = attention_backends.make_inputs(shape, 3, mode)
        ref = attention_backends.fp32_reference(inp, shape, inp.dout)
        off = tuple(ref[:3]) + (ref[3] + 0.5,)
        assert al.max_abs_err(off, ref) > 0.1


def test_sdpa_gqa_row_checked_against_fp32(fakes):
    rec = al.run_shape(al.Shape("features", "fp16", 32, True, 48, 1, 4, heads_kv=2),
                       parse(*CONFIG, "--backends=flashcore,flash"), seed=2)
    fl = rec["backends"]["flash"]
    assert fl["error"] is not None or fl["within_tolerance"] is True  # CPU SDPA with enable_gqa


@pytest.mark.parametrize("mode", ["fwd", "bwd", "fwd_bwd"])
@pytest.mark.parametrize("reference", ["sdpa", "fp32"])
def test_fa4_plain_row_every_mode(fakes, mode, reference):
    rec = al.run_shape(al.Shape("seed", "bf16", 32, True, 48, 2, 4),
                       parse(*CONFIG, f"--mode={mode}", f"--reference={reference}"), seed=4)
    assert rec["reference"] == ("flash" if reference == "sdpa" else "math_fp32")
    assert rec["correct"] is True
    fa4 = rec["backends"]["fa4"]
    assert fa4["within_tolerance"] is True and 0 < fa4["max_abs_err"] < 2e-2
    if mode in al.KERNEL_TIMED_MODES:
        assert fa4["graph_ms"] == 1.5 and rec["kernel_flashcore_over_fa4"] == pytest.approx(1.5)
    else:
        assert fa4["graph_ms"] is None
    assert rec["flops"] == al.mode_flops(al.attention_flops(2, 4, 48, 48, 32, True), mode)
    assert fakes["fa4_calls"] >= 1


def test_wrong_fa4_is_flagged_not_failed(fakes):
    fakes["fa4_error"] = 0.5
    rec = al.run_shape(al.Shape("seed", "fp16", 32, False, 32, 1, 2), parse(*CONFIG), seed=0)
    assert rec["backends"]["fa4"]["within_tolerance"] is False
    assert rec["correct"] is True  # flashcore's verdict decides the exit code
    assert "wrong(fa4)" in al.format_table([rec], parse().backends)


def test_window_passes_through_to_both(fakes):
    al.run_shape(al.Shape("features", "bf16", 32, True, 40, 1, 2, window=8, softcap=30.0),
                 parse(*CONFIG, "--backends=flashcore,fa4"), seed=0)
    assert {"window_size": (8, 0), "softcap": 30.0, "learnable_sink": None} in fakes["kwargs"]


def test_main_with_fa4_and_features(fakes, tmp_path, monkeypatch):
    import attention_config
    monkeypatch.setattr(attention_config, "VARLEN_MIXED", (3, 10, 40))
    monkeypatch.setattr(attention_config, "GQA_SEQLENS", (64,))
    monkeypatch.setattr(attention_config, "WINDOW_SEQLEN", 64)
    monkeypatch.setattr(attention_config, "WINDOW_LEFT", 16)
    monkeypatch.setattr(attention_config, "SOFTCAP_SEQLEN", 32)
    monkeypatch.setattr(attention_config, "VARLEN_EQUAL", (2, 32))
    monkeypatch.setattr(attention_config, "GQA_HEADS", (4, 2))
    monkeypatch.setattr(attention_config, "HIDDEN", 64)
    lines = []
    config = parse(*CONFIG, "--grid=features", "--dtypes=bf16", "--head_dims=32", "--causal=true",
                   "--backends=flashcore,cudnn,fa4", f"--out_dir={tmp_path}")
    assert al.main(config, log=lines.append) == 0
    text = "\n".join(lines)
    assert "fa4: FlashAttention-4 from flash_attn.cute" in text
    assert "cudnn left out: torch SDPA has no softcap" in text
    assert "feature cost" in text and "gqa4/2" in text
    with open(tmp_path / al.JSON_NAME) as f:
        doc = json.load(f)
    assert doc["config"]["backends"] == ["flashcore", "cudnn", "fa4"]
    costs = {c["label"]: c for c in doc["feature_costs"]}
    assert len(costs) == 5  # gqa, window, softcap, varlen equal, varlen mixed
    for label, c in costs.items():  # fixed times: the ratio is the ratio of needed FLOPs
        assert c["ratios"]["flashcore"] == pytest.approx(c["ratios"]["fa4"])
        if "gqa" in label or "cap" in label:
            assert c["ratios"]["flashcore"] == pytest.approx(1.0)
        if "win" in label:
            assert c["ratios"]["flashcore"] < 1.0


# --- FlashAttention-4 absent -----------------------------------------------------------------

def test_fa4_absent_is_said_once_and_left_out(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    install(monkeypatch, {}, fa4=False)
    mod, why = al.fa4_status()
    assert mod is None and why.startswith("not importable")
    lines = []
    config = parse(*CONFIG, "--grid=seed", "--dtypes=fp16", f"--out_dir={tmp_path}")
    assert "fa4" in config.backends
    assert al.main(config, log=lines.append) == 0
    said = [l for l in lines if "FlashAttention-4" in l]
    assert len(said) == 1 and "left out" in said[0], lines
    rest = "\n".join(l for l in lines if l != said[0] and str(tmp_path) not in l)
    assert "fa4" not in rest and "FA4" not in rest and "fc/cudnn" in rest
    with open(tmp_path / al.JSON_NAME) as f:
        doc = json.load(f)
    assert "fa4" not in doc["config"]["backends"]
    for r in doc["records"]:
        assert "fa4" not in r["backends"] and r["kernel_flashcore_over_fa4"] is None
    assert doc["env"].get("fa4") is None


def test_fa4_named_but_absent_in_run_shape_is_an_error_not_a_number(monkeypatch):
    pytest.importorskip("torch")
    install(monkeypatch, {}, fa4=False)
    rec = al.run_shape(al.Shape("seed", "fp16", 32, False, 32, 1, 2), parse(*CONFIG), seed=0)
    e = rec["backends"]["fa4"]
    assert "ImportError" in e["error"] and e["ms"] is None and e["graph_tflops"] is None
    assert rec["kernel_flashcore_over_fa4"] is None


def test_fa4_broken_install_is_not_importable(monkeypatch):
    import types
    broken = types.ModuleType("flash_attn.cute")  # no flash_attn_func
    monkeypatch.setitem(sys.modules, "flash_attn", types.ModuleType("flash_attn"))
    monkeypatch.setitem(sys.modules, "flash_attn.cute", broken)
    mod, why = al.fa4_status()
    assert mod is None and "flash_attn_func" in why


# --- bounded runs ----------------------------------------------------------------------------

def test_time_budget_skips_the_rest(fakes, tmp_path):
    config = parse(*CONFIG, "--grid=seed", "--time_budget_s=0.000001", f"--out_dir={tmp_path}",
                   "--backends=flashcore,flash")
    lines = []
    al.main(config, log=lines.append)
    with open(tmp_path / al.JSON_NAME) as f:
        doc = json.load(f)
    assert len(doc["records"]) == 1 and len(doc["skipped"]) == 3  # the first row always runs
    assert any("time budget" in l for l in lines)


def test_warm_only_calls_each_backend_once(fakes, tmp_path):
    config = parse("--grid=seed", "--dtypes=bf16", "--warm_only", "--backends=flashcore,fa4",
                   f"--out_dir={tmp_path}", "--mode=bwd")
    lines = []
    assert al.main(config, log=lines.append) == 0
    assert fakes["calls"] == 2 and fakes["fa4_calls"] == 2
    assert sum(l.startswith("[warm ") for l in lines) == 2
    assert not os.listdir(tmp_path)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
