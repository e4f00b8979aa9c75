set -u
thr() { nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'power\|thermal'; }
thr
CARRY=.carry_s17 SUITES="gpu_h100_kvcache:330 gpu_h100_hf:200" OUT=$OUT/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -12
thr
mkdir -p /tmp/f && tar xzf .carry_s17/fused_attention_bundle.tar.gz -C /tmp/f && R=/tmp/f/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 240 python3 .carry_s17/combine_ab.py 3 2>&1 | tee $OUT/combine_ab.log | tail -20
thr
