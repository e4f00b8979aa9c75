"""Best TFLOP/s per row and build from the output of kernel-only A/B runs, with each build's ratio
to a base build. The runs (tools/bench/ab_kernels.py, or a session's own benchmark) print one line
a row, `LABEL ROW... MS ms TFLOPS TFLOP/s`, where LABEL is the build's name with an optional round
suffix `_rN` (several rounds of one build keep their best reading: alternating processes, as
docs/PERF.md's A/Bs run them). Lines of any other shape are ignored.

    python3 tools/bench/ab_table.py OUT/ab.txt head new [other...]
"""
import collections
import re
import sys

ROUND = re.compile(r"_r\d+$")


def best_by_row(lines):
    """{row: {build: best TFLOP/s}}, rows in the order first seen."""
    best = collections.OrderedDict()
    for line in lines:
        f = line.split()
        if len(f) < 6 or f[-1] != "TFLOP/s" or f[-3] != "ms":
            continue
        try:
            tflops = float(f[-2])
            float(f[-4])
        except ValueError:
            continue
        build = ROUND.sub("", f[0])
        row = " ".join(f[1:-4])
        cell = best.setdefault(row, {})
        cell[build] = max(cell.get(build, 0.0), tflops)
    return best


def table(best, base, others):
    """Lines `row  base X  other Y ratio ...` for rows the base build has."""
    out = []
    width = max([len(r) for r in best] + [10])
    for row, cell in best.items():
        if base not in cell:
            continue
        parts = ["%-*s %s %7.1f" % (width, row, base, cell[base])]
        parts += ["%s %7.1f %.3f" % (o, cell[o], cell[o] / cell[base]) for o in others if o in cell]
        out.append("  ".join(parts))
    return out


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    with open(argv[1]) as f:
        best = best_by_row(f)
    print("\n".join(table(best, argv[2], argv[3:])))


if __name__ == "__main__":
    main(sys.argv)
