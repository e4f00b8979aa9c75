set -u
OUT=$OUT/ab_bwd CARRY=.carry_s17 VARIANTS="base bwdmask" REPS=2 AB_ARGS="--dims 64,128 --passes bwd --seqlens 1024,4096,16384 --rep 40" bash tools/bench/ab_kernels.sh
CARRY=.carry_s17 SUITES="gpu_h100_bwd:400 gpu_h100_features:330" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
