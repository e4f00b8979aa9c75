set -u
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="new desc" REPS=2 AB_ARGS="--dims 64,96,128,192,256 --passes fwd --seqlens 1024,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -36
mv $OUT/ab/ab.log $OUT/ab/ab_fwd.log
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="new desc" REPS=2 AB_ARGS="--dims 64,128 --passes bwd --nofeatures --seqlens 1024,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -14
