#!/usr/bin/env bash
# Named GPU suites from a carried bundle, in parallel on one GPU (correctness only: nothing timed
# runs beside them), each with its own timeout; prints each suite's pytest tail and the first
# failures, and copies each test.log to $OUT.
#
#   CPU machine: tools/bazel build --config=gpu_target --repo_env=FLASHCORE_PY312_HEADERS_TGZ=$H //tests:gpu_h100_bundle
#                cp bazel-bin/tests/gpu_h100_bundle.tar.gz $CARRY/
#   GPU machine: CARRY=.carry SUITES="gpu_h100:240 gpu_h100_bwd:300 gpu_h100_features:240" bash tools/bench/gpu_suites.sh
set -u
C=$(cd "${CARRY:?CARRY: the folder holding gpu_<kind>_bundle.tar.gz}" && pwd)
OUT=${OUT:-/tmp/suites_out}
W=${SUITES_WORK:-/tmp/gpu_suites}  # a folder per concurrent invocation
mkdir -p "$OUT" "$W"
bundle=$(ls "$C"/gpu_*_bundle.tar.gz | head -1)
tar xzf "$bundle" -C "$W"
for st in ${SUITES:?SUITES: \"name:timeout_s ...\"}; do
  su=${st%%:*}; to=${st##*:}
  ( (cd "$W" && timeout $((to + 10)) python3 bundle/run.py --only "$su" --timeout "$to" --out "$W/out_$su") > "$OUT/$su.log" 2>&1
    echo "== $su rc=$? $(grep -hoE '[0-9]+ (passed|failed)[^=]*' "$W/out_$su/tests/$su/test.log" 2>/dev/null | tail -1)" ) &
done
wait
for st in $SUITES; do
  su=${st%%:*}
  cp "$W/out_$su/tests/$su/test.log" "$OUT/${su}_test.log" 2>/dev/null
  grep -hE "^FAILED" "$OUT/${su}_test.log" 2>/dev/null | head -5 | cut -c1-300
done
