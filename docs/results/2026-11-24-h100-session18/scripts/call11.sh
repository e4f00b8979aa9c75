set -u
C=$PWD/.carry_s18
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
for dt in bf16 fp16; do
OUT=$OUT/ab_$dt CARRY=.carry_s18 VARIANTS="base lr" REPS=2 AB_ARGS="--dtype $dt --dims 192 --passes fwd --nofeatures --seqlens 1024,2048,4096,8192,16384 --rep 25" bash tools/bench/ab_kernels.sh | tail -11
done
CARRY=.carry_s18 SUITES="gpu_h100:400 gpu_h100_features:330" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
mkdir -p /tmp/v192 && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/v192
R=/tmp/v192/bundle/runfiles
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_192.py > $OUT/san_192_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -2 $OUT/san_192_$t.log | tr '\n' ' ')"; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
