set -u
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="new noturn" REPS=2 AB_ARGS="--dims 64,96 --passes fwd --seqlens 2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -20
