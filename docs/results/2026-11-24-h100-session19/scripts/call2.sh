set -u
C=$PWD/.carry_s19
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="tri wide wider" REPS=2 AB_ARGS="--dims 128 --passes fwd --seqlens 1024,2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -14
for v in wide wider; do
R=/tmp/ab_$v/bundle/runfiles
echo "== tiles $v"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 $C/tiles.py 96,128 1024,2048,4096 2>&1 | tail -14
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
