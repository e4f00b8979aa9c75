"""Attention benchmark on a GPU (forward, backward or both): flashcore vs torch SDPA (flash,
efficient, cuDNN) and FlashAttention-4 (when importable) over the FlashAttention paper grid, the
seed shape and issue 13's feature rows (GQA, window, softcap, packed varlen).

  bazel run //tools/bench:attention -- --grid=paper --dtypes=bf16
  bazel run //tools/bench:attention -- --grid=features --mode=bwd --rows=bf16:gqa
  python tools/bench/attention.py --out_dir=/tmp/bench   # with flashcore importable

`--mode=decode` runs the KV-cache decode benchmark instead (tools/bench/decode.py, its own flags).

Prints a table, writes attention.json and attention.png to --out_dir, and exits 1 if flashcore
raised or was off by more than --tolerance (or NaN) on any shape. See attention_lib.py.
"""

import sys

from absl import app

import attention_lib

FLAGS = attention_lib.define_flags()


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    try:
        config = attention_lib.config_from_flags(FLAGS)
    except attention_lib.ConfigError as e:
        raise app.UsageError(str(e)) from None
    return attention_lib.main(config)


if __name__ == "__main__":
    if "--mode=decode" in sys.argv[1:]:  # the decode benchmark has its own flags (decode.py)
        import decode
        sys.exit(decode.main([a for a in sys.argv[1:] if a != "--mode=decode"]))
    app.run(main)
