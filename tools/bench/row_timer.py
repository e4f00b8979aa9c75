"""Several backends or variants timed in one process on the same tensors: the in-process counterpart
of device_call.sh's dc_ab (which alternates builds across processes).

Each row names its FLOPs and its callables. Every round times each callable of each row once
(triton.testing.do_bench_cudagraph by default: kernel-only, CUDA-graph replay), the callables'
order rotated by one from round to round, so that no backend always runs first or right after
another. Each reading is one ab_table.py line, `LABEL_rROUND ROW MS ms TFLOPS TFLOP/s`:

    rows = [Row("bf16 d128 S4096 causal", flops, [("fc", fc_call), ("cudnn", cudnn_call)])]
    time_rows(rows, rounds=2)                 # prints the lines
    python3 tools/bench/ab_table.py out.txt cudnn fc

Rows may carry a `setup` callable run before each of their readings (e.g. a process-wide switch
that selects a variant, as pack-GQA on / off did); it runs outside the timed region.
"""
import dataclasses
from typing import Callable, List, Optional, Sequence, Tuple

Call = Tuple[str, Callable[[], object]]


@dataclasses.dataclass
class Row:
    name: str
    flops: float
    calls: List[Call]
    setup: Optional[Callable[[str], None]] = None  # called with the label before each reading


def line(label: str, round_: int, row: str, ms: float, flops: float) -> str:
    """One reading as ab_table.py reads it."""
    if ms <= 0:
        raise ValueError(f"ms must be positive, got {ms} for {label} {row}")
    return f"{label}_r{round_} {row} {ms:.4f} ms {flops / ms / 1e9:.1f} TFLOP/s"


def rotated(calls: Sequence[Call], k: int) -> List[Call]:
    """The calls in round k's order: the list rotated left by k."""
    k %= len(calls)
    return list(calls[k:]) + list(calls[:k])


def _check(rows: Sequence[Row]) -> None:
    for row in rows:
        labels = [label for label, _ in row.calls]
        if not labels:
            raise ValueError(f"row {row.name!r} has no calls")
        if len(set(labels)) != len(labels):
            raise ValueError(f"row {row.name!r} repeats a label: {labels}")
        bad = [x for x in labels if not x or any(c.isspace() for c in x)]
        if bad:
            raise ValueError(f"row {row.name!r}: labels must be single words, got {bad}")


def time_rows(rows: Sequence[Row], rounds: int, bench=None, rep: float = 40.0, warmup: bool = True,
              emit: Callable[[str], None] = None) -> None:
    """Times every (row, call) `rounds` times; emits one line per reading (print, flushed, by
    default). `warmup` makes one eager call of each before the first round: a JIT-compiled backend
    (FlashAttention-4) compiles there rather than inside a graph capture."""
    _check(rows)
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if bench is None:
        import triton.testing
        bench = triton.testing.do_bench_cudagraph
    if emit is None:
        def emit(s):
            print(s, flush=True)
    if warmup:
        for row in rows:
            for label, fn in row.calls:
                if row.setup is not None:
                    row.setup(label)
                fn()
    for r in range(1, rounds + 1):
        for row in rows:
            for label, fn in rotated(row.calls, r - 1):
                if row.setup is not None:
                    row.setup(label)
                emit(line(label, r, row.name, bench(fn, rep=rep), row.flops))


def attention_flops(batch: int, heads_q: int, seqlen_q: int, seqlen_k: int, head_dim: int, causal: bool,
                    head_dim_v: Optional[int] = None) -> float:
    """Forward FLOPs of the score pairs needed (causal: bottom-right aligned, as flashcore's)."""
    dv = head_dim if head_dim_v is None else head_dim_v
    if causal:
        shift = seqlen_k - seqlen_q  # query i sees keys j <= i + shift
        pairs = sum(max(0, min(seqlen_k, i + shift + 1)) for i in range(seqlen_q)) if shift < 0 else \
            seqlen_q * (seqlen_q + 1) // 2 + seqlen_q * shift
    else:
        pairs = seqlen_q * seqlen_k
    return 2.0 * batch * heads_q * pairs * (head_dim + dv)
