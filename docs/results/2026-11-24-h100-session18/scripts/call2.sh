set -u
C=$PWD/.carry_s18
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s18 VARIANTS="main new" REPS=2 AB_ARGS="--dtype fp16 --dims 128 --passes bwd --nofeatures --det --seqlens 1024,4096,16384 --rep 30" bash tools/bench/ab_kernels.sh
mkdir -p /tmp/v80 && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/v80
R=/tmp/v80/bundle/runfiles
ls $R | head -3
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_v80.py > $OUT/san_v80_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -2 $OUT/san_v80_$t.log | tr '\n' ' ')"; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
