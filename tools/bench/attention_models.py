"""Attention benchmark, the models grid: one row per attention layer kind of open models people
train and serve today, with each model's head counts, head dim, sliding window, logit softcap and
attention sinks as its published configuration gives them (facts of the configs, no weights).

Every row is causal (decoder LMs), bf16 (how these models train), MODEL_SEQLEN tokens a sequence
and TOTAL_TOKENS in all, like the paper grid. A sliding window of W keys is FlashAttention's
window_size = (W, 0). Models with two layer kinds (local / global) have a row for each.
"""

import collections

ModelLayer = collections.namedtuple("ModelLayer", "name head_dim heads heads_kv window softcap sink")

MODEL_SEQLEN = 8192
MODEL_DTYPE = "bf16"

# (name, head dim, query heads, k/v heads, sliding window (-1: none), softcap (0: none), sinks)
MODEL_LAYERS = (
    ModelLayer("llama3-8b", 128, 32, 8, -1, 0.0, False),
    ModelLayer("qwen2.5-7b", 128, 28, 4, -1, 0.0, False),
    ModelLayer("mistral-7b", 128, 32, 8, 4096, 0.0, False),
    ModelLayer("phi3-mini", 96, 32, 32, -1, 0.0, False),
    ModelLayer("gemma2-9b-global", 256, 16, 8, -1, 50.0, False),
    ModelLayer("gemma2-9b-local", 256, 16, 8, 4096, 50.0, False),
    ModelLayer("gemma3-4b-global", 256, 8, 4, -1, 0.0, False),
    ModelLayer("gemma3-4b-local", 256, 8, 4, 1024, 0.0, False),
    ModelLayer("gpt-oss-full", 64, 64, 8, -1, 0.0, True),
    ModelLayer("gpt-oss-sliding", 64, 64, 8, 128, 0.0, True),
)


def model_shapes(shape_cls, total_tokens):
    """The models grid's Shapes (shape_cls: attention_config.Shape)."""
    batch = max(1, total_tokens // MODEL_SEQLEN)
    return [shape_cls("models", MODEL_DTYPE, m.head_dim, True, MODEL_SEQLEN, batch, m.heads,
                      m.heads_kv if m.heads_kv != m.heads else 0, m.window, m.softcap, sink=m.sink,
                      model=m.name)
            for m in MODEL_LAYERS]
