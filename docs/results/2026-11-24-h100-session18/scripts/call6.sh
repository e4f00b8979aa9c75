set -u
C=$PWD/.carry_s18
cp .carry_fa4/fa4/b/cu13.part.ab /root/keep/ && ls -la /root/keep
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
mkdir -p /tmp/v80 && tar xzf $C/gpu_h100_bundle.tar.gz -C /tmp/v80
R=/tmp/v80/bundle/runfiles
for t in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 250 /usr/local/cuda/bin/compute-sanitizer --tool $t python3 $C/san_v80.py > $OUT/san_v80_$t.log 2>&1 &
done
wait
for t in racecheck memcheck; do echo "$t: $(tail -2 $OUT/san_v80_$t.log | tr '\n' ' ')"; done
