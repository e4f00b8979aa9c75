#!/usr/bin/env bash
# One GPU-machine run for the Hopper (wgmma/TMA) backward, kernels/hopper/bwd_kernel.cuh, with
# FLASHCORE_BWD_HOPPER=1 throughout. Run from the repository root of the device tool's copy, with
# .bundle/ carried:
#
#   CPU machine:
#     H=$PWD/../shared/sysroots/ubuntu24.04-python3.12-include.tgz
#     tools/bazel build --config=gpu_target --repo_env=FLASHCORE_PY312_HEADERS_TGZ=$H \
#         //tests:gpu_h100_bundle //tests:gpu_h200_bundle //tools/bench:attention_bundle
#     mkdir -p .bundle && cp -f bazel-bin/tests/gpu_h100_bundle.tar.gz \
#         bazel-bin/tests/gpu_h200_bundle.tar.gz bazel-bin/tools/bench/attention_bundle.tar.gz .bundle/
#   GPU machine (device tool, carry [".bundle"]):
#     bash tools/bench/hopper_bwd_gpu_run.sh
#
# Steps: (1) tools/bench/hopper_bwd_check.py (wgmma vs mma.sync vs float64 on odd shapes, and
# the profiler shows the Hopper kernel ran), 60 s; (2) the backward GPU suite gpu_<kind>_bwd,
# 120 s (59 s with mma.sync on H100); (3) the backward benchmark on the paper grid (bf16, d64/d128, S 1k/4k/16k, causal
# both; every backend in one process), 170 s. About 6 minutes at most. Results in $OUT:
# check.log, results.tgz (suite logs/XML), summary.json, attention.json (its "kernels" entries
# name which backward kernels ran), bench.log. Exit status: the first failing step's.
set -u
OUT=${OUT:-/tmp/flashcore_out}
ROOT=$PWD
WORK=/tmp/flashcore_hopper_bwd
rm -rf "$WORK" && mkdir -p "$WORK/suite" "$WORK/bench" "$OUT"
export FLASHCORE_BWD_HOPPER=1

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$gpu" in
  *H100*) kind=h100 ;;
  *H200*) kind=h200 ;;
  *) echo "hopper_bwd_gpu_run: unexpected GPU '${gpu}' (bundles exist for H100 and H200)"; exit 2 ;;
esac
for f in "gpu_${kind}_bundle.tar.gz" attention_bundle.tar.gz; do
  [ -f "$ROOT/.bundle/$f" ] || { echo "hopper_bwd_gpu_run: .bundle/$f missing (see the header)"; exit 2; }
done
tar xzf "$ROOT/.bundle/gpu_${kind}_bundle.tar.gz" -C "$WORK/suite"
tar xzf "$ROOT/.bundle/attention_bundle.tar.gz" -C "$WORK/bench"

echo "=== hopper_bwd_check on ${gpu} ==="
PYTHONPATH="$WORK/suite/bundle/runfiles/_main/py" timeout 60 python3 "$ROOT/tools/bench/hopper_bwd_check.py" \
    2>&1 | tee "$OUT/check.log"
rc_check=${PIPESTATUS[0]}

echo "=== gpu_${kind}_bwd ==="
(cd "$WORK/suite" && timeout 120 python3 bundle/run.py --only "gpu_${kind}_bwd" --timeout 110 --out "$WORK/results")
rc_suite=$?

echo "=== bwd benchmark ==="
(cd "$WORK/bench" && timeout 170 python3 bundle/run.py -- --out_dir="$WORK/bench_out" --mode=bwd --grid=paper \
    --head_dims=64,128 --seqlens=1024,4096,16384 --dtypes=bf16 --causal=both --host_calls=0) \
    2>&1 | tee "$OUT/bench.log"
rc_bench=${PIPESTATUS[0]}

tar czf "$OUT/results.tgz" -C "$WORK" results bench_out 2>/dev/null
cp -f "$WORK/results/summary.json" "$OUT/" 2>/dev/null
cp -f "$WORK/bench_out/attention.json" "$OUT/" 2>/dev/null
echo "check rc=${rc_check} suite rc=${rc_suite} bench rc=${rc_bench}"
[ "$rc_check" -ne 0 ] && exit "$rc_check"
[ "$rc_suite" -ne 0 ] && exit "$rc_suite"
exit "$rc_bench"
