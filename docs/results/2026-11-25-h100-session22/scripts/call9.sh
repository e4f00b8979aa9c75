# Session 22 call 9 (H100): kernel-only A/B, c2d6344's forward (hv) against P's conversion inside
# the softmax step with the P V wait halfway (pk), bf16 then fp16, alternating processes; then the
# forward's GPU suites on pk.
set -u
for dt in bf16 fp16; do
  OUT=/tmp/ab_$dt CARRY=.carry_s22i VARIANTS="hv pk" REPS=2 \
    AB_ARGS="--dtype $dt --dims 64,128,96,256 --passes fwd --seqlens 1024,4096,16384 --rep 20" \
    bash tools/bench/ab_kernels.sh | grep -v "SW Th\|HW"
  mkdir -p $OUT/$dt && cp /tmp/ab_$dt/ab.log $OUT/$dt/
done
CARRY=.carry_s22i SUITES="gpu_h100:330 gpu_h100_features:330 gpu_h100_hf:250 gpu_h100_paged_forward:420" \
  bash tools/bench/gpu_suites.sh
