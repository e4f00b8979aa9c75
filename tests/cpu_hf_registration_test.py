"""CPU suite: the transformers integration's registration logic (flashcore.integrations.
transformers) without transformers, which the CPU venv does not hold: a stand-in with the layout
and interfaces of transformers 5.x (GeneralInterface's class-wide register, the FlashAttention
loader looked up at call time, _check_and_adjust_attn_implementation). The real library is
exercised by tests/gpu_hf_test.py on the GPU machines (transformers 5.17)."""

import inspect
import os
import sys

import pytest

import flashcore


class _GeneralInterface:
    _global_mapping = {}

    @classmethod
    def register(cls, key, value):
        cls._global_mapping.update({key: value})

    def __contains__(self, key):
        return key in self._global_mapping


def _fake_transformers(monkeypatch):
    import types
    mods = {}

    def mod(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        mods[name] = m
        monkeypatch.setitem(sys.modules, name, m)
        return m

    class AttentionInterface(_GeneralInterface):
        _global_mapping = {"sdpa": "sdpa-fn"}

    class AttentionMaskInterface(_GeneralInterface):
        _global_mapping = {"sdpa": "sdpa-mask"}

    def original_lazy_imports(implementation, attention_wrapper=None, allow_all_kernels=False):
        return ("hub", implementation)

    fa_utils = mod("transformers.modeling_flash_attention_utils", _lazy_imports=original_lazy_imports,
                   _pad_input="pad", _unpad_input="unpad")

    def lazy_import_flash_attention(implementation):  # as transformers': looks _lazy_imports up at call time
        return fa_utils._lazy_imports(implementation)
    fa_utils.lazy_import_flash_attention = lazy_import_flash_attention

    class PreTrainedModel:
        def _check_and_adjust_attn_implementation(self, attn_implementation, is_init_check=False):
            compatible = getattr(self, "_compatible_flash_implementations", None)
            if compatible is not None and "flash" in attn_implementation and attn_implementation not in compatible:
                return compatible[0]
            return attn_implementation

    mu = mod("transformers.modeling_utils", PreTrainedModel=PreTrainedModel)
    mod("transformers.integrations")
    mod("transformers.integrations.flash_attention", flash_attention_forward="hf-flash-forward")
    mod("transformers.masking_utils", flash_attention_mask="hf-flash-mask")
    top = mod("transformers", __version__="5.17.0", AttentionInterface=AttentionInterface,
              AttentionMaskInterface=AttentionMaskInterface, modeling_flash_attention_utils=fa_utils,
              modeling_utils=mu)
    return top, fa_utils, PreTrainedModel


def test_transformers_register_fills_both_interfaces_and_serves_flashcore(monkeypatch):
    from flashcore.integrations import transformers as fc_hf
    top, fa_utils, PreTrainedModel = _fake_transformers(monkeypatch)
    assert fc_hf.register() == "flashcore"
    assert top.AttentionInterface._global_mapping["flashcore"] == "hf-flash-forward"
    assert top.AttentionMaskInterface._global_mapping["flashcore"] == "hf-flash-mask"
    flash_fn, varlen_fn, kvcache_fn, pad, unpad = fa_utils.lazy_import_flash_attention("flashcore")
    assert (flash_fn, varlen_fn, kvcache_fn, pad, unpad) == (flashcore.flash_attn_func,
                                                             flashcore.flash_attn_varlen_func, None, "pad", "unpad")
    assert fa_utils.lazy_import_flash_attention("paged|flashcore")[1] is flashcore.flash_attn_varlen_func
    assert fa_utils.lazy_import_flash_attention("flash_attention_2") == ("hub", "flash_attention_2")
    wrapper = fa_utils._lazy_imports
    fc_hf.register()  # idempotent: no second wrapper
    assert fa_utils._lazy_imports is wrapper
    # a second name is served by the same wrapper
    assert fc_hf.register("flashcore_test") == "flashcore_test"
    assert fa_utils.lazy_import_flash_attention("flashcore_test")[0] is flashcore.flash_attn_func


def test_transformers_register_lets_restricting_models_accept_the_name(monkeypatch):
    from flashcore.integrations import transformers as fc_hf
    _, _, PreTrainedModel = _fake_transformers(monkeypatch)

    class GptOssLike(PreTrainedModel):
        _compatible_flash_implementations = ["kernels-community/vllm-flash-attn3", "flash_attention_4"]

    assert GptOssLike()._check_and_adjust_attn_implementation("flashcore") == "kernels-community/vllm-flash-attn3"
    fc_hf.register()
    assert GptOssLike()._check_and_adjust_attn_implementation("flashcore") == "flashcore"
    assert GptOssLike()._check_and_adjust_attn_implementation("flash_attention_2") == \
        "kernels-community/vllm-flash-attn3"  # other names: the model's own rule
    assert "flashcore" in GptOssLike._compatible_flash_implementations


def test_transformers_register_errors(monkeypatch):
    from flashcore.integrations import transformers as fc_hf
    for bad in ("core", "paged|flashcore", "org/flash", 3):
        with pytest.raises(ValueError, match="name must be a string containing 'flash'"):
            fc_hf.register(bad)
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ImportError, match="needs transformers >= 5"):
        fc_hf.register()
    top, _, _ = _fake_transformers(monkeypatch)
    top.__version__ = "4.57.1"
    with pytest.raises(ImportError, match="needs transformers >= 5, found 4.57.1"):
        fc_hf.register()


def test_the_functions_have_the_keywords_transformers_looks_for():
    # transformers' _process_flash_attention_kwargs passes a feature only if the varlen
    # function's signature names it (_lazy_define_process_function); the dense call gets the same.
    wanted = {"causal", "softmax_scale", "dropout_p", "window_size", "softcap", "deterministic", "learnable_sink"}
    assert wanted | {"max_seqlen_q", "max_seqlen_k", "cu_seqlens_q", "cu_seqlens_k"} <= \
        set(inspect.signature(flashcore.flash_attn_varlen_func).parameters)
    assert wanted <= set(inspect.signature(flashcore.flash_attn_func).parameters)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]
                         + (["--junitxml", os.environ["XML_OUTPUT_FILE"]] if "XML_OUTPUT_FILE" in os.environ else [])))
