set -u
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s18 VARIANTS="main v80" REPS=2 AB_ARGS="--dims 128 --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 40" bash tools/bench/ab_kernels.sh
CARRY=.carry_s18 SUITES="gpu_h100_bwd:330" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
