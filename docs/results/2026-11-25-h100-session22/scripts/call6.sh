# Session 22 call 6 (H100): kernel-only A/B, HEAD's forward (base) against the step order per head
# dim (sm3: halves together except at 128), bf16 then fp16, paper-grid seqlens, alternating processes.
set -u
for dt in bf16 fp16; do
  OUT=/tmp/ab_$dt CARRY=.carry_s22f VARIANTS="base sm3" REPS=2 \
    AB_ARGS="--dtype $dt --dims 64,128 --passes fwd --seqlens 1024,2048,4096,8192,16384 --rep 20" \
    bash tools/bench/ab_kernels.sh
  mkdir -p $OUT/$dt && cp /tmp/ab_$dt/ab.log $OUT/$dt/
done
