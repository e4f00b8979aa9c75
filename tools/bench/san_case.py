"""A compute-sanitizer driver for chosen kernels, checked by the feature suite's oracle.

A device call runs it under compute-sanitizer (tools/bench/device_call.sh dc_sanitize, whose
--kernel-name filter picks the kernels instrumented) and once without, where its checks are the
GPU suites' own: tests/features_case.py Case (fresh random inputs, poisoned outputs) and
run_and_check (flashcore's error against float64 at most 2x that of the same math in the
low-precision dtype; NaN never passes). It replaces the per-session near-copies of one case
(sessions 58-60: san_plain_case.py, san_d80_case.py, san_d200_case.py, san_bwd80_case.py).

  PYTHONPATH=<py tree>:tools/bench:tests python3 tools/bench/san_case.py \
      --dims 80,72,80:96 --tiles default,long_rows --passes fwd,bwd --features plain,softcap,gqa

--dims: head dims, `d` or `d:dv` (q/k and v apart, e.g. 192:128). --tiles: the forward tiles to
force (tools' names: flashcore._attention.FWD_TILES; `auto` lets each call pick); a head dim
without the tile runs its default one. --features: one case per entry, each a `+`-joined set of
plain, gqa, softcap, window, sink, varlen, negscale (a negative softmax scale: the general
mainloop copy). --passes bwd adds the gradients (and, with --deterministic, the deterministic
backward's three bitwise-equal runs).
"""

import argparse
import itertools
import sys

import torch

FEATURES = ("plain", "gqa", "softcap", "window", "sink", "varlen", "negscale")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def parse_dims(text):
    """'80,72,192:128' -> [(80, 80), (72, 72), (192, 128)]."""
    dims = []
    for part in text.split(","):
        qk, _, v = part.partition(":")
        d = int(qk)
        dims.append((d, int(v) if v else d))
    return dims


def parse_features(text):
    """'plain,softcap+gqa' -> [set(), {'softcap', 'gqa'}]; unknown names are an error."""
    sets = []
    for entry in text.split(","):
        names = set(entry.split("+")) - {"plain"}
        unknown = names - set(FEATURES)
        if unknown:
            raise ValueError("--features: unknown %s (known: %s)" % (sorted(unknown), ", ".join(FEATURES)))
        sets.append(names)
    return sets


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dims", required=True, help="head dims: d or d:dv, comma-separated")
    ap.add_argument("--tiles", default="auto", help="forced forward tiles, comma-separated (auto: none)")
    ap.add_argument("--passes", default="fwd", help="fwd, or fwd,bwd")
    ap.add_argument("--features", default="plain", help="one case per entry; entries join names with +")
    ap.add_argument("--dtypes", default="bf16,fp16")
    ap.add_argument("--causal", default="full,causal", help="full, causal, or both")
    ap.add_argument("--deterministic", action="store_true", help="also the deterministic backward")
    ap.add_argument("--shape", default="1,300,420", help="dense batch, seqlen_q, seqlen_k")
    ap.add_argument("--seed", type=int, default=None, help="default: fresh per case (printed on failure)")
    args = ap.parse_args(argv)
    args.dims = parse_dims(args.dims)
    args.features = parse_features(args.features)
    args.tiles = [None if t == "auto" else t for t in args.tiles.split(",")]
    args.passes = set(args.passes.split(","))
    if not args.passes <= {"fwd", "bwd"}:
        ap.error("--passes: fwd and / or bwd")
    args.dtypes = [DTYPES[d] for d in args.dtypes.split(",")]
    args.causal = [{"full": False, "causal": True}[c] for c in args.causal.split(",")]
    args.shape = tuple(int(x) for x in args.shape.split(","))
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from flashcore import _attention
    import features_case

    features_case.ERRORS.reset()  # this run's errors only (print_error_summary)
    cases = 0
    for dtype, (d, dv), causal, names, tile in itertools.product(args.dtypes, args.dims, args.causal,
                                                                 args.features, args.tiles):
        case = features_case.Case(dtype=dtype, head_dim=d, head_dim_v=dv, causal=causal, gqa="gqa" in names,
                                  softcap="softcap" in names, window="window" in names, sink="sink" in names,
                                  varlen="varlen" in names, dense_shape=args.shape, seed=args.seed)
        if "negscale" in names:
            case.scale = -case.scale
            case.name += "+negscale"
        case.name += " tile=%s" % (tile or "auto")
        _attention._set_forced_fwd_tile(tile)
        try:
            features_case.run_and_check(case, backward="bwd" in args.passes)
            if "bwd" in args.passes and args.deterministic:
                features_case.check_deterministic_backward(case)
        finally:
            _attention._set_forced_fwd_tile(None)
        cases += 1
    torch.cuda.synchronize()
    features_case.print_error_summary()
    print("san_case: %d cases passed" % cases)


if __name__ == "__main__":
    main()
