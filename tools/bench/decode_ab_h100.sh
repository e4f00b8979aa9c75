#!/bin/bash
# One device call (H100): the decode split-count A/B, then the decode table against main's build,
# then the KV-cache GPU suite. Bounded to ~250 s; at most six files in $OUT. (At 51b0b47 step 1
# also timed the paged load paths since removed: docs/results/2026-11-23-h100-decode3.md.)
#
# Inputs (paths; defaults: the folder this script is in):
#   NEW_BUNDLE    //tools/bench:attention_bundle of this branch      (dec3_attention_bundle.tar.gz)
#   SUITE_BUNDLE  //tests:gpu_h100_bundle of this branch             (dec3_gpu_h100_bundle.tar.gz)
#   MAIN_BUNDLE   //tools/bench:attention_bundle of main (optional)  (main_attention_bundle.tar.gz)
#
# Steps:
#   1. split_ab.log + decode_split_ab.json: decode.py --split_ab on the new build. Per row, every
#      (layout, split count) cell timed once per round, 3 rounds interleaved, medians.
#   2. decode_new.log / decode_main.log: the backend table (torch flash, cuDNN, flashcore contiguous
#      / page 16 / page 256 at the heuristic split count) from the new build, then from main's in
#      the next process. This checks that contiguous is no slower (its kernel is now a contiguous-only
#      instantiation).
#   3. gpu_h100_kvcache.log: the KV-cache suite on the new build.
set -u
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/dec3_out}
NEW_BUNDLE=${NEW_BUNDLE:-$C/dec3_attention_bundle.tar.gz}
SUITE_BUNDLE=${SUITE_BUNDLE:-$C/dec3_gpu_h100_bundle.tar.gz}
MAIN_BUNDLE=${MAIN_BUNDLE:-$C/main_attention_bundle.tar.gz}
W=/tmp/dec3w
rm -rf "$W" && mkdir -p "$W/new" "$W/main" "$W/suite" "$OUT"
exec > >(tee -a "$OUT/go.log") 2>&1
echo "start $(date +%T)"
timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
tar xzf "$NEW_BUNDLE" -C "$W/new" && echo "new bundle unpacked"
[ -f "$MAIN_BUNDLE" ] && tar xzf "$MAIN_BUNDLE" -C "$W/main" && echo "main bundle unpacked"
tar xzf "$SUITE_BUNDLE" -C "$W/suite" && echo "suite bundle unpacked"

echo "== 1. split-count A/B (new build) $(date +%T)"
(cd "$W/new" && timeout 80 python3 bundle/run.py -- --mode=decode --split_ab --ab_rounds 3 \
  --out_dir "$W/ab") > "$OUT/split_ab.log" 2>&1
echo "rc=$? $(date +%T)"
cp "$W/ab/decode_split_ab.json" "$OUT/" 2>/dev/null
grep -E "^B|splits" "$OUT/split_ab.log" | head -80

echo "== 2a. decode table, new build $(date +%T)"
(cd "$W/new" && timeout 50 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" \
  --out_dir "$W/tab_new") > "$OUT/decode_new.log" 2>&1
echo "rc=$? $(date +%T)"; grep "^B" "$OUT/decode_new.log"
if [ -f "$W/main/bundle/run.py" ]; then
  echo "== 2b. decode table, main's build $(date +%T)"
  (cd "$W/main" && timeout 50 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" \
    --out_dir "$W/tab_main") > "$OUT/decode_main.log" 2>&1
  echo "rc=$? $(date +%T)"; grep "^B" "$OUT/decode_main.log"
fi

echo "== 3. gpu_h100_kvcache (new build) $(date +%T)"
(cd "$W/suite" && timeout 120 python3 bundle/run.py --only gpu_h100_kvcache --timeout 110 --out "$W/res") \
  > "$W/suite.txt" 2>&1
echo "rc=$? $(date +%T)"
cp "$W/res/tests/gpu_h100_kvcache/test.log" "$OUT/gpu_h100_kvcache.log" 2>/dev/null || cp "$W/suite.txt" "$OUT/gpu_h100_kvcache.log"
grep -E "[0-9]+ (passed|failed)" "$OUT/gpu_h100_kvcache.log" | tail -2
echo "done $(date +%T)"
