set -u
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters'
for dt in bf16 fp16; do
  OUT=$OUT/ab_$dt CARRY=.carry_s17 VARIANTS="main new" REPS=2 AB_ARGS="--dims 192,256 --passes fwd --nofeatures --seqlens 1024,2048,4096,16384 --dtype $dt --rep 40" bash tools/bench/ab_kernels.sh
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters'
