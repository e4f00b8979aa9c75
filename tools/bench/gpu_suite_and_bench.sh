#!/usr/bin/env bash
# One GPU-machine run of the GPU suite and a short benchmark, from bundles built on the CPU machine
# (docs/GPU.md). Run from the repository root of the device tool's copy, with .bundle/ carried:
#
#   CPU machine:
#     H=$PWD/../shared/sysroots/ubuntu24.04-python3.12-include.tgz
#     tools/bazel build --config=gpu_target --repo_env=FLASHCORE_PY312_HEADERS_TGZ=$H \
#         //tests:gpu_h100_bundle //tests:gpu_h200_bundle //tools/bench:attention_bundle
#     mkdir -p .bundle && cp -f bazel-bin/tests/gpu_h100_bundle.tar.gz \
#         bazel-bin/tests/gpu_h200_bundle.tar.gz bazel-bin/tools/bench/attention_bundle.tar.gz .bundle/
#   GPU machine (device tool, carry [".bundle"]):
#     bash tools/bench/gpu_suite_and_bench.sh
#
# Steps: (1) the GPU suites of this GPU's kind, forward and backward (gpu_<kind>, gpu_<kind>_api and
# gpu_<kind>_bwd from the one bundle; the oracles include the portable sm80_ptx library forced, _api
# the forward's direct eager path, torch.compile, CUDA graphs, memcheck); (2) the forward benchmark
# on the rows, every backend in one process: do_bench, kernel-only (CUDA-graph replay) and
# host-bound (us/call) columns; (3) flashcore through the portable sm80_ptx library (what GPUs newer
# than Hopper run) on a few rows, correctness only. Results: $OUT/results.tgz (suite logs/XML, bench
# JSON/PNG) and $OUT/summary.json, $OUT/attention.json, $OUT/bench.log. Exit status: the suite's, or
# the bench's if the suite passed. Bounded to 9 minutes (timeouts 300 + 170 + 45 s) for one
# 10-minute device call.
set -u
OUT=${OUT:-/tmp/flashcore_out}
ROOT=$PWD
WORK=/tmp/flashcore_gpu_run
rm -rf "$WORK" && mkdir -p "$WORK/suite" "$WORK/bench" "$OUT"

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$gpu" in
  *H100*) kind=h100 ;;
  *H200*) kind=h200 ;;
  *) echo "gpu_suite_and_bench: unexpected GPU '${gpu}' (bundles exist for H100 and H200)"; exit 2 ;;
esac
for f in "gpu_${kind}_bundle.tar.gz" attention_bundle.tar.gz; do
  [ -f "$ROOT/.bundle/$f" ] || { echo "gpu_suite_and_bench: .bundle/$f missing (see the header)"; exit 2; }
done
tar xzf "$ROOT/.bundle/gpu_${kind}_bundle.tar.gz" -C "$WORK/suite"
tar xzf "$ROOT/.bundle/attention_bundle.tar.gz" -C "$WORK/bench"

echo "=== GPU suite on ${gpu} ==="
# The bundle's sanitizer sweep (gpu_<kind>_sanitizer, minutes) does not fit beside the bench here.
(cd "$WORK/suite" && timeout 300 python3 bundle/run.py --only "gpu_${kind}" --only "gpu_${kind}_api" \
    --only "gpu_${kind}_bwd" --timeout 290 --out "$WORK/results")
rc_suite=$?

# The table rows plus the seed shape, fp16 and bf16 at the two head dims.
ROWS="seed,bf16:d128:full:s16384,bf16:d128:causal:s4096,fp16:d64:full:s2048,bf16:d64:causal:s8192"
ROWS="$ROWS,fp16:d128:full:s512,fp16:d128:causal:s1024,bf16:d64:full:s1024"
echo "=== benchmark ==="
(cd "$WORK/bench" && timeout 170 python3 bundle/run.py -- --out_dir="$WORK/bench_out" \
    --rows="$ROWS" --warmup_ms=25 --rep_ms=100 --host_calls=2000 --host_budget_ms=200) \
    2>&1 | tee "$OUT/bench.log"
rc_bench=${PIPESTATUS[0]}

for arch in sm80_ptx; do
  echo "=== flashcore through ${arch} (correctness only) ==="
  (cd "$WORK/bench" && timeout 45 python3 bundle/run.py -- --out_dir="$WORK/bench_${arch}" \
      --force_arch=${arch} --rows=seed,d128:causal:s1024,d64:full:s2048 --backends=flashcore,flash \
      --noprofile_kernels --nokernel_timing --host_calls=0 --warmup_ms=5 --rep_ms=10) \
      2>&1 | tail -15 | tee -a "$OUT/bench.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && rc_bench=$rc
done

tar czf "$OUT/results.tgz" -C "$WORK" results bench_out bench_sm80_ptx 2>/dev/null
cp -f "$WORK/results/summary.json" "$OUT/" 2>/dev/null
cp -f "$WORK/bench_out/attention.json" "$OUT/" 2>/dev/null
echo "suite rc=${rc_suite} bench rc=${rc_bench}"
[ "$rc_suite" -ne 0 ] && exit "$rc_suite"
exit "$rc_bench"
