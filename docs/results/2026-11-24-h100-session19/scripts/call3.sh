set -u
C=$PWD/.carry_s19
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s19 VARIANTS="base new" REPS=2 AB_ARGS="--dtype fp16 --dims 96 --passes fwd --nofeatures --seqlens 1024,2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -9
CARRY=.carry_s19 SUITES="gpu_h100:330 gpu_h100_features:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
mkdir -p /tmp/g && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 240 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_fwd96.py > $OUT/san_fwd96_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -3 $OUT/san_fwd96_$t.log | tr '\n' ' ')"; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
