set -u
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
for dt in bf16 fp16; do
OUT=$OUT/ab_$dt CARRY=.carry_s18 VARIANTS="base kn" REPS=2 AB_ARGS="--dtype $dt --dims 192 --passes fwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh | tail -9
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
