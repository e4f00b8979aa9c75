"""Hugging Face transformers backend: attn_implementation="flashcore".

    import flashcore.integrations.transformers as fc_hf
    fc_hf.register()
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="flashcore")

transformers (5.x) is imported only by register(). The name contains "flash", so transformers
treats it as a FlashAttention flavour throughout (transformers.utils.generic.
is_flash_attention_requested): it builds FlashAttention's masks, and its FlashAttention wrapper
(transformers.integrations.flash_attention.flash_attention_forward) takes every model's call --
GQA k/v passed with their own heads (never repeated), padding masks unpadded into the varlen
path, packed position_ids and cu_seq_lens_* / max_length_* kwargs into the varlen path,
sliding_window as window_size (w - 1, w - 1) with causal, softcap, s_aux sinks as
learnable_sink, deterministic. What register() adds:

- the attention function and the mask function under the name, in AttentionInterface and
  AttentionMaskInterface (without the mask side a new name gets attention_mask=None and padded
  batches would attend to padding);
- the implementation transformers' wrapper loads for the name: flashcore.flash_attn_func and
  flash_attn_varlen_func (transformers loads FlashAttention flavours through
  modeling_flash_attention_utils._lazy_imports, which for an unknown name would look for a Hub
  kernel and fail); the features each supports are read from their signatures by transformers;
- models that restrict FlashAttention flavours (_compatible_flash_implementations, e.g. gpt-oss)
  accept the name (else they would switch to a Hub kernel).
"""

from __future__ import annotations

NAME = "flashcore"
_registered = set()


def _flashcore_functions():
    import flashcore
    return flashcore.flash_attn_func, flashcore.flash_attn_varlen_func


def _patch_lazy_imports(fa_utils, name):
    """Serve `name` (and only it) from flashcore in transformers' FlashAttention loader."""
    original = fa_utils._lazy_imports
    if getattr(original, "_flashcore_names", None) is not None:
        original._flashcore_names.add(name)
        return

    def _lazy_imports(implementation, attention_wrapper=None, allow_all_kernels=False):
        base = implementation.split("|", 1)[-1] if isinstance(implementation, str) else implementation
        if base in _lazy_imports._flashcore_names:
            flash_fn, varlen_fn = _flashcore_functions()
            # no flash_attn_with_kvcache: transformers then uses the varlen path for paged caches
            return flash_fn, varlen_fn, None, fa_utils._pad_input, fa_utils._unpad_input
        return original(implementation, attention_wrapper, allow_all_kernels=allow_all_kernels)

    _lazy_imports._flashcore_names = {name}
    _lazy_imports._flashcore_original = original
    fa_utils._lazy_imports = _lazy_imports


def _patch_compatible_flash_implementations(modeling_utils, name):
    """Models listing the FlashAttention flavours they accept get `name` added when asked for it."""
    cls = modeling_utils.PreTrainedModel
    original = cls._check_and_adjust_attn_implementation
    if getattr(original, "_flashcore_names", None) is not None:
        original._flashcore_names.add(name)
        return

    def _check_and_adjust_attn_implementation(self, attn_implementation, *args, **kwargs):
        base = attn_implementation.split("|", 1)[-1] if isinstance(attn_implementation, str) else None
        compatible = getattr(type(self), "_compatible_flash_implementations", None)
        if base in _check_and_adjust_attn_implementation._flashcore_names and compatible is not None \
                and base not in compatible:
            type(self)._compatible_flash_implementations = list(compatible) + [base]
        return original(self, attn_implementation, *args, **kwargs)

    _check_and_adjust_attn_implementation._flashcore_names = {name}
    cls._check_and_adjust_attn_implementation = _check_and_adjust_attn_implementation


def register(name: str = NAME) -> str:
    """Registers flashcore in transformers under `name` (default "flashcore"; it must contain
    "flash" so that transformers prepares FlashAttention-style masks and kwargs). Idempotent.
    Returns the name, for attn_implementation=."""
    if not isinstance(name, str) or "flash" not in name or "|" in name or "/" in name:
        raise ValueError("flashcore.integrations.transformers.register: name must be a string containing 'flash' "
                         "(transformers routes FlashAttention flavours by it) without '|' or '/', got %r" % (name,))
    try:
        import transformers
        from transformers import AttentionInterface, AttentionMaskInterface
        from transformers import modeling_flash_attention_utils as fa_utils
        from transformers import modeling_utils
        from transformers.integrations.flash_attention import flash_attention_forward
        from transformers.masking_utils import flash_attention_mask
    except ImportError as e:
        raise ImportError("flashcore.integrations.transformers.register needs transformers >= 5 (%s)" % e) from e
    major = int(transformers.__version__.split(".")[0])
    if major < 5:
        raise ImportError("flashcore.integrations.transformers.register needs transformers >= 5, found %s"
                          % transformers.__version__)
    _patch_lazy_imports(fa_utils, name)
    _patch_compatible_flash_implementations(modeling_utils, name)
    AttentionInterface.register(name, flash_attention_forward)
    AttentionMaskInterface.register(name, flash_attention_mask)
    _registered.add(name)
    return name
