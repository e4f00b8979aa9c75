set -u
CARRY=.carry_s19 SUITES="gpu_h100:330 gpu_h100_features:330 gpu_h100_bwd:420 gpu_h100_edge:250 gpu_h100_fuzz:330 gpu_h100_kvcache:330 gpu_h100_hf:250" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
mkdir -p /tmp/g && tar xzf .carry_s19/gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 .carry_s19/san_fwd96.py > $OUT/san_fwd96_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -2 $OUT/san_fwd96_$t.log | tr '\n' ' ')"; done
