#!/bin/bash
# One device call (H100), call 2 of branch decode4: the combine kernel A/B (main's one split per
# iteration vs 4 / 8 splits' loads in flight) in one process, the decode backend table of main's
# build and this branch's in alternating processes (ROUNDS pairs, default 1: the device budget was
# short), ncu of the three combine kernels (NCU=1 only), and the KV-cache suite on this branch.
# Bounded to ~200 s at the defaults; six files in $OUT.
#
# Inputs (defaults: the folder this script is in):
#   AB_BUNDLE     attention bundle of 5ed6b33 + the combine A/B hook (FLASHCORE_DECODE_AB: L main's
#                 combine, C4 four splits a batch, else eight: 5ed6b33's)  (dec4ab2_attention_bundle.tar.gz)
#                 (the hook: docs/results/2026-11-23-h100-decode4/call2/combine_ab_hook.patch on 5ed6b33)
#   NEW_BUNDLE    //tools/bench:attention_bundle of 5ed6b33               (dec4fin_attention_bundle.tar.gz)
#   SUITE_BUNDLE  //tests:gpu_h100_bundle of 5ed6b33                      (dec4fin_gpu_h100_bundle.tar.gz)
#   MAIN_BUNDLE   //tools/bench:attention_bundle of main 1e93dd2          (main_attention_bundle.tar.gz)
set -u
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/dec4_out}
AB_BUNDLE=${AB_BUNDLE:-$C/dec4ab2_attention_bundle.tar.gz}
NEW_BUNDLE=${NEW_BUNDLE:-$C/dec4fin_attention_bundle.tar.gz}
SUITE_BUNDLE=${SUITE_BUNDLE:-$C/dec4fin_gpu_h100_bundle.tar.gz}
MAIN_BUNDLE=${MAIN_BUNDLE:-$C/main_attention_bundle.tar.gz}
W=/tmp/dec4w2
rm -rf "$W" && mkdir -p "$W/ab" "$W/new" "$W/main" "$W/suite" "$OUT"
exec > >(tee -a "$OUT/go.log") 2>&1
echo "start $(date +%T)"
timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
for x in ab:$AB_BUNDLE new:$NEW_BUNDLE main:$MAIN_BUNDLE suite:$SUITE_BUNDLE; do
  tar xzf "${x#*:}" -C "$W/${x%%:*}" && echo "${x%%:*} unpacked"
done

echo "== 1. combine A/B $(date +%T)"
(cd "$W/ab" && PYTHONUNBUFFERED=1 timeout 90 python3 bundle/run.py -- --mode=decode --variant_ab --ab_rounds 5 \
  --ab_rows 1:32:32:65536,1:32:8:131072 --ab_split_variants "legacy=L,c4=C4,c8=" --out_dir "$W/abo") > "$OUT/ab2.log" 2>&1
echo "rc=$? $(date +%T)"; cp "$W/abo/decode_variant_ab.json" "$OUT/" 2>/dev/null
grep -E "^B|   " "$OUT/ab2.log"

echo "== 2. decode tables, main / new alternating $(date +%T)"
for i in $(seq 1 ${ROUNDS:-1}); do
  for b in main new; do
    echo "-- $b run $i $(date +%T)" >> "$OUT/tables.log"
    (cd "$W/$b" && PYTHONUNBUFFERED=1 timeout 70 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" \
      --out_dir "$W/tab_${b}_$i") >> "$OUT/tables.log" 2>&1
    echo "$b $i rc=$? $(date +%T)"
  done
done
grep -E "^--|^B" "$OUT/tables.log"

if [ "${NCU:-0}" = 1 ]; then
echo "== 3. ncu, combine kernels $(date +%T)"
NCU_BIN=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
(cd "$W/ab" && timeout 60 "$NCU_BIN" --clock-control none --kernel-name-base demangled -k regex:decode \
  --section SpeedOfLight python3 bundle/run.py -- --mode=decode --variant_ab --ab_no_time --ab_rows 1:32:8:131072 \
  --ab_layouts contig --ab_split_variants "legacy=L,c4=C4,c8=" --out_dir "$W/ncu") > "$OUT/ncu.log" 2>&1
echo "rc=$? $(date +%T)"
grep -E "^  void|Duration|DRAM Throughput" "$OUT/ncu.log"
fi

echo "== 4. gpu_h100_kvcache (5ed6b33) $(date +%T)"
(cd "$W/suite" && timeout 80 python3 bundle/run.py --only gpu_h100_kvcache --timeout 75 --out "$W/res") > "$W/suite.txt" 2>&1
echo "rc=$? $(date +%T)"
cp "$W/res/tests/gpu_h100_kvcache/test.log" "$OUT/kvcache.log" 2>/dev/null || cp "$W/suite.txt" "$OUT/kvcache.log"
grep -E "[0-9]+ (passed|failed)" "$OUT/kvcache.log" | tail -2
echo "done $(date +%T)"
