set -u
C=$PWD/.carry_s18
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
OUT=$OUT/ab CARRY=.carry_s18 VARIANTS="base six" REPS=2 AB_ARGS="--dims 96,128 --passes bwd --det --nofeatures --seqlens 1024,2048,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh
CARRY=.carry_s18 SUITES="gpu_h100_bwd:330 gpu_h100_features:330" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
mkdir -p /tmp/v96 && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/v96
R=/tmp/v96/bundle/runfiles
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_96.py > $OUT/san_96_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -2 $OUT/san_96_$t.log | tr '\n' ' ')"; done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
