set -u
C=$PWD/.carry_s19
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="${V:-base eighth quarter half tri}" REPS=2 AB_ARGS="--dims 64,96,128 --passes fwd --seqlens 1024,2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh
