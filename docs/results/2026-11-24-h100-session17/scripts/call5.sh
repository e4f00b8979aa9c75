set -u
OUT=$OUT/ab_d64_128 CARRY=.carry_s17 VARIANTS="main mask" REPS=2 AB_ARGS="--dims 64,128 --passes fwd --seqlens 1024,4096,16384 --rep 40" bash tools/bench/ab_kernels.sh
OUT=$OUT/ab_d192_256 CARRY=.carry_s17 VARIANTS="main mask" REPS=2 AB_ARGS="--dims 96,192,256 --passes fwd --nofeatures --seqlens 1024,2048,16384 --rep 30" bash tools/bench/ab_kernels.sh
