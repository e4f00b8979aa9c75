"""Fakes for the attention benchmark's CPU tests: flashcore (dense with GQA/window/softcap, and
varlen) and FlashAttention-4 (flash_attn.cute) computed by plain torch math on CPU tensors, and a
fixed timer, so the per-row GPU path runs on a machine without a GPU."""

import math
import sys
import types

from absl import flags

import attention_backends
import attention_lib as al


def parse(*args, environ=None):
    fv = flags.FlagValues()
    al.define_flags(fv)
    fv(["attention", *args])
    return al.config_from_flags(fv, environ={} if environ is None else environ)


def attend(q, k, v, causal=False, window_size=(-1, -1), softcap=0.0, sink=None):
    """Attention of (B, S, H, D) tensors in fp32 by einsum, k/v of H / group heads (GQA),
    FlashAttention's window (bottom-right aligned), softcap and a sink (H,) logit per head that joins
    each row's denominator; differentiable."""
    import torch
    heads, kv_heads, d = q.shape[2], k.shape[2], q.shape[3]
    k = k.float().repeat_interleave(heads // kv_heads, dim=2)
    v = v.float().repeat_interleave(heads // kv_heads, dim=2)
    s = torch.einsum("bqhd,bkhd->bhqk", q.float(), k) / math.sqrt(d)
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    left, right = window_size
    if causal:
        right = 0
    sq, sk = q.shape[1], k.shape[1]
    i = torch.arange(sq)[:, None] + (sk - sq)
    j = torch.arange(sk)[None, :]
    keep = torch.ones(sq, sk, dtype=torch.bool)
    if left is not None and left >= 0:
        keep &= j >= i - left
    if right is not None and right >= 0:
        keep &= j <= i + right
    s = s.masked_fill(~keep, float("-inf"))
    if sink is not None:
        column = sink.float()[None, :, None, None].expand(s.shape[0], heads, sq, 1)
        p = torch.softmax(torch.cat([s, column], dim=-1), dim=-1)[..., :sk]
    else:
        p = torch.softmax(s, dim=-1)
    return torch.einsum("bhqk,bkhd->bqhd", p, v)


def _packed(fn, q, k, v, cu):
    import torch
    bounds = cu.tolist()
    outs = [fn(q[None, a:b], k[None, a:b], v[None, a:b])[0] for a, b in zip(bounds, bounds[1:])]
    return torch.cat(outs, dim=0)


def fake_flashcore(state):
    """A module with flashcore's attention, flash_attn_varlen_func and build_info."""
    def attention(q, k, v, *, causal=False, softmax_scale=None, return_lse=False, deterministic=False,
                  window_size=(-1, -1), softcap=0.0, learnable_sink=None):
        state["calls"] = state.get("calls", 0) + 1
        state.setdefault("kwargs", []).append({"window_size": window_size, "softcap": softcap,
                                               "learnable_sink": learnable_sink})
        assert q.is_contiguous() and q.dim() == 4
        out = attend(q, k, v, causal, window_size, softcap, learnable_sink) + state.get("error", 0.0)
        return out.to(q.dtype)

    def flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, dropout_p=0.0, softmax_scale=None,
                               causal=False, window_size=(-1, -1), softcap=0.0, alibi_slopes=None,
                               deterministic=False, return_attn_probs=False):
        state["varlen_calls"] = state.get("varlen_calls", 0) + 1
        assert q.dim() == 3 and cu_q is cu_k and max_q == max_k
        out = _packed(lambda a, b, c: attend(a, b, c, causal, window_size, softcap), q, k, v, cu_q)
        return (out + state.get("error", 0.0)).to(q.dtype)

    mod = types.ModuleType("flashcore")
    mod.attention = attention
    mod.flash_attn_varlen_func = flash_attn_varlen_func
    mod.build_info = lambda: {"fake": True}
    return mod


def fake_fa4(state):
    """(flash_attn, flash_attn.cute) modules with FlashAttention-4's two entry points: (out, lse)
    with lse None, window (None, None) unbounded."""
    def flash_attn_func(q, k, v, softmax_scale=None, causal=False, window_size=(None, None),
                        learnable_sink=None, softcap=0.0, deterministic=False, return_lse=False):
        state["fa4_calls"] = state.get("fa4_calls", 0) + 1
        state.setdefault("fa4_kwargs", []).append({"learnable_sink": learnable_sink})
        out = attend(q, k, v, causal, window_size, softcap, learnable_sink) + state.get("fa4_error", 0.0)
        return out.to(q.dtype), None

    def flash_attn_varlen_func(q, k, v, cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
                               max_seqlen_k=None, softmax_scale=None, causal=False,
                               window_size=(None, None), learnable_sink=None, softcap=0.0,
                               deterministic=False, return_lse=False):
        state["fa4_varlen_calls"] = state.get("fa4_varlen_calls", 0) + 1
        out = _packed(lambda a, b, c: attend(a, b, c, causal, window_size, softcap), q, k, v,
                      cu_seqlens_q)
        return (out + state.get("fa4_error", 0.0)).to(q.dtype), None

    pkg = types.ModuleType("flash_attn")
    cute = types.ModuleType("flash_attn.cute")
    cute.flash_attn_func = flash_attn_func
    cute.flash_attn_varlen_func = flash_attn_varlen_func
    pkg.cute = cute
    return pkg, cute


def install(monkeypatch, state, fa4=False):
    """CPU tensors, the fake flashcore, FlashAttention-4 faked (fa4=True) or not importable, and
    fixed timings (do_bench 2 ms for flashcore, 3 ms otherwise; graph replay 1 / 1.5 ms)."""
    monkeypatch.setitem(sys.modules, "flashcore", fake_flashcore(state))
    if fa4:
        pkg, cute = fake_fa4(state)
        monkeypatch.setitem(sys.modules, "flash_attn", pkg)
        monkeypatch.setitem(sys.modules, "flash_attn.cute", cute)
    else:
        monkeypatch.setitem(sys.modules, "flash_attn", None)  # import raises ImportError
        monkeypatch.delitem(sys.modules, "flash_attn.cute", raising=False)
    monkeypatch.setattr(attention_backends, "DEVICE", "cpu")
    monkeypatch.setattr(al, "time_ms", lambda backend, fn, w, r: 2.0 if backend == "flashcore" else 3.0)
    monkeypatch.setattr(al, "graph_time_ms", lambda backend, fn, r: 1.0 if backend == "flashcore" else 1.5)
    return state
