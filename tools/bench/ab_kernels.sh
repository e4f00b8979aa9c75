#!/usr/bin/env bash
# Kernel-only A/B of several flashcore builds on one GPU machine: tools/bench/ab_kernels.py runs once
# per build per round in alternating processes (so drift and heat hit every build alike), then a
# table of each row's best TFLOP/s per build and each build's ratio to the first (ab_table.py).
# tools/bench/device_call.sh is the same A/B for a call that also runs suites and sanitizers on
# carried py trees.
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
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 "$HERE/ab_kernels.py" --label "${v}_r$rep" ${AB_ARGS:-} >> "$OUT/ab.log" 2>&1
  done
done
throttle
# shellcheck disable=SC2086  # VARIANTS is a list of builds
python3 "$HERE/ab_table.py" "$OUT/ab.log" $VARIANTS
