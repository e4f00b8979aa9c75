#!/usr/bin/env bash
# Session 21, call 7 (H100): HEAD (ffdd09b's kernels + the sanitizer case with 200 and the (192, 128)
# pair): gpu_h100 and gpu_h100_kvcache suites, then the narrow mainloop's A/B against main (65f3819)
# in fp16 and bf16. Carry .carry_s21 (gpu_h100_bundle, main_ and narrow_attention_bundle).
set -u
CARRY=.carry_s21 SUITES="gpu_h100:330 gpu_h100_kvcache:420" bash tools/bench/gpu_suites.sh 2>&1 | tail -8
for dt in fp16 bf16; do
  OUT=/tmp/ab_$dt CARRY=.carry_s21 VARIANTS="main narrow" REPS=2 \
    AB_ARGS="--dtype $dt --dims 80,96,200,256,192:128,192 --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 25" \
    bash tools/bench/ab_kernels.sh 2>&1 | tail -40
  cp /tmp/ab_$dt/ab.log "$OUT/ab_$dt.log"
done
