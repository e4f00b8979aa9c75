#!/usr/bin/env bash
# Kernel-only A/B of several flashcore builds on one GPU machine: tools/bench/ab_kernels.py runs once
# per build per round in alternating processes (so drift and heat hit every build alike), then a
# table of each row's best TFLOP/s per build and the last/first ratio.
#
#   CPU machine, per build V (a commit or a working-tree variant):
#     tools/bazel build --config=gpu_target --repo_env=FLASHCORE_PY312_HEADERS_TGZ=$H //tools/bench:attention_bundle
#     cp bazel-bin/tools/bench/attention_bundle.tar.gz $CARRY/V_attention_bundle.tar.gz
#   GPU machine (device tool, carry [$CARRY], from the repository root):
#     CARRY=.carry VARIANTS="main new" REPS=2 AB_ARGS="--dims 64,128 --passes fwd" bash tools/bench/ab_kernels.sh
#
# $OUT/ab.log: every process's rows; stdout: the clocks and throttle counters before and after,
# and the table. A machine whose counters show thermal slowdown during the run gives unreliable
# ratios: give it back and run again.
set -u
C=$(cd "${CARRY:?CARRY: the folder holding <variant>_attention_bundle.tar.gz}" && pwd)
OUT=${OUT:-/tmp/ab_out}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
throttle() { nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
throttle
for v in ${VARIANTS:?VARIANTS: the builds to compare, first is the baseline}; do
  mkdir -p "/tmp/ab_$v" && tar xzf "$C/${v}_attention_bundle.tar.gz" -C "/tmp/ab_$v"
done
for rep in $(seq "${REPS:-2}"); do
  for v in $VARIANTS; do
    R=/tmp/ab_$v/bundle/runfiles
    # shellcheck disable=SC2086  # AB_ARGS is a list of arguments
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 "$HERE/ab_kernels.py" --label "$v$rep" ${AB_ARGS:-} >> "$OUT/ab.log" 2>&1
  done
done
throttle
python3 - "$OUT/ab.log" $VARIANTS <<'PY'
import collections, sys
log, labels = sys.argv[1], sys.argv[2:]
best = collections.defaultdict(float)
rows = []
for line in open(log):
    f = line.split()
    if len(f) >= 9 and f[-1] == "TFLOP/s":
        label, row = f[0].rstrip("0123456789"), " ".join(f[1:6])
        if row not in rows:
            rows.append(row)
        best[(row, label)] = max(best[(row, label)], float(f[-2]))
print("row".ljust(34), *[l.rjust(12) for l in labels], "last/first")
for row in rows:
    v = [best[(row, l)] for l in labels]
    print(row.ljust(34), *["%12.1f" % x for x in v], "%.3f" % (v[-1] / v[0] if v[0] else 0))
PY
