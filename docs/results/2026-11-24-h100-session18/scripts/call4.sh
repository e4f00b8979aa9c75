set -u
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s18 VARIANTS="base c80" REPS=2 AB_ARGS="--dims 128 --passes bwd --det --seqlens 1024,2048,4096,16384 --rep 30" bash tools/bench/ab_kernels.sh
CARRY=.carry_s18 SUITES="gpu_h100_bwd:330 gpu_h100_features:330" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
