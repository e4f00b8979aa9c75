set -u
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="new tree" REPS=2 AB_ARGS="--dims 64,96,128,256 --passes fwd --seqlens 1024,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -34
