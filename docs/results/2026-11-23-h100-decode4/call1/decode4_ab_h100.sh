#!/bin/bash
# One device call (H100), issue 16's decode bars, call 1 of branch decode4: the variants of the A/B
# build (FLASHCORE_DECODE_AB, kernels/decode/tile_policy.h) timed interleaved in one process, a
# size sweep of the split rows, ncu of the worst cell, and the KV-cache suite with the default and
# with the flat split + 6-stage rings forced. Bounded to ~420 s; at most eight files in $OUT.
#
# Inputs (paths; defaults: the folder this script is in):
#   AB_BUNDLE     //tools/bench:attention_bundle of the A/B build  (dec4ab_attention_bundle.tar.gz)
#   SUITE_BUNDLE  //tests:gpu_h100_bundle of the A/B build         (dec4ab_gpu_h100_bundle.tar.gz)
#
# Variants (letters of FLASHCORE_DECODE_AB): L main's combine kernel (one partial per iteration),
# else the new one (4 partials' loads in flight); S<d> ring depth of split launches, U<d> of
# unsplit ones (3: two CTAs per SM, main's; 4..6: one CTA per SM); F the flat split (132 CTAs
# for B1, a CTA's range may cross a kv head). "base" = LS3U3 is main's configuration.
#
# Steps:
#   1. ab.log + decode_variant_ab.json: the six rows x (contig, page 16, page 256) x variants,
#      5 rounds interleaved, medians.
#   2. sweep.log: B1 Hk8 and B1 H32 at other key counts (contiguous): time = fixed + bytes / rate.
#   3. ncu.log: B1 Hq32 Hk8 k131072, contiguous and page 16, base / s6 / f6: split and combine
#      kernels (SpeedOfLight, WarpStateStats, Occupancy).
#   4. kvcache_default.log, kvcache_FS6U6.log: //tests:gpu_h100_kvcache.
set -u
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/dec4_out}
AB_BUNDLE=${AB_BUNDLE:-$C/dec4ab_attention_bundle.tar.gz}
SUITE_BUNDLE=${SUITE_BUNDLE:-$C/dec4ab_gpu_h100_bundle.tar.gz}
W=/tmp/dec4w
rm -rf "$W" && mkdir -p "$W/ab" "$W/suite" "$OUT"
exec > >(tee -a "$OUT/go.log") 2>&1
echo "start $(date +%T)"
timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
tar xzf "$AB_BUNDLE" -C "$W/ab" && echo "A/B bundle unpacked"
tar xzf "$SUITE_BUNDLE" -C "$W/suite" && echo "suite bundle unpacked"
SPLIT_V="base=LS3U3,new=S3U3,s4=S4,s5=S5,s6=S6,f3=F,f5=FS5,f6=FS6"
UNSPLIT_V="base=LS3U3,u4=U4,u5=U5,u6=U6"

echo "== 1. variant A/B $(date +%T)"
(cd "$W/ab" && PYTHONUNBUFFERED=1 timeout 210 python3 bundle/run.py -- --mode=decode --variant_ab --ab_rounds 5 \
  --ab_split_variants "$SPLIT_V" --ab_unsplit_variants "$UNSPLIT_V" --out_dir "$W/abo") > "$OUT/ab.log" 2>&1
echo "rc=$? $(date +%T)"
cp "$W/abo/decode_variant_ab.json" "$OUT/" 2>/dev/null
cat "$OUT/ab.log" | grep -v "^ *$" | tail -120

echo "== 2. size sweep $(date +%T)"
(cd "$W/ab" && PYTHONUNBUFFERED=1 timeout 70 python3 bundle/run.py -- --mode=decode --variant_ab --ab_rounds 3 \
  --ab_rows 1:32:8:32768,1:32:8:65536,1:32:8:262144,1:32:32:16384,1:32:32:32768,1:32:32:131072 \
  --ab_layouts contig --ab_split_variants "base=LS3U3,new=S3U3,s6=S6,f6=FS6" --out_dir "$W/sw") > "$OUT/sweep.log" 2>&1
echo "rc=$? $(date +%T)"; grep -E "^B|contig" "$OUT/sweep.log"

echo "== 3. ncu $(date +%T)"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
(cd "$W/ab" && timeout 100 "$NCU" --clock-control none --kernel-name-base demangled -k regex:decode \
  --section SpeedOfLight --section WarpStateStats --section Occupancy \
  python3 bundle/run.py -- --mode=decode --variant_ab --ab_no_time --ab_rows 1:32:8:131072 --ab_layouts contig,page16 \
  --ab_split_variants "base=LS3U3,s6=S6,f6=FS6" --out_dir "$W/ncu") > "$OUT/ncu.log" 2>&1
echo "rc=$? $(date +%T)"
grep -E "decode_(kernel|combine)|Duration|DRAM Throughput|Memory Throughput|Registers|Achieved Occupancy|Warp Cycles Per Issued" "$OUT/ncu.log" | head -80

echo "== 4. gpu_h100_kvcache $(date +%T)"
for V in default FS6U6; do
  if [ $V = default ]; then unset FLASHCORE_DECODE_AB; else export FLASHCORE_DECODE_AB=$V; fi
  rm -rf "$W/res"
  (cd "$W/suite" && timeout 80 python3 bundle/run.py --only gpu_h100_kvcache --timeout 75 --out "$W/res") > "$W/suite.txt" 2>&1
  echo "$V rc=$? $(date +%T)"
  cp "$W/res/tests/gpu_h100_kvcache/test.log" "$OUT/kvcache_$V.log" 2>/dev/null || cp "$W/suite.txt" "$OUT/kvcache_$V.log"
  grep -E "[0-9]+ (passed|failed)" "$OUT/kvcache_$V.log" | tail -2
done
unset FLASHCORE_DECODE_AB
echo "done $(date +%T)"
