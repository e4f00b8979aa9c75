# Session 23 call 4 (H100): the sanitizer suite (memcheck, racecheck, initcheck, synccheck over
# every runnable instantiation; its call 3 run stopped at a front-end TypeError, fixed since) and
# the feature / edge suites on the final build; then the paper backward grid of that build, every
# backend that loads here in one process (flashcore, cuDNN, torch flash; FA4 ran in call 2 on HEAD).
set -u
cd "$(dirname "$0")/../../../.."
CARRY=.carry_s23d SUITES="gpu_h100_sanitizer:300 gpu_h100_features:300" OUT=/tmp/suites \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -8
grep -E "passed|failed|SUMMARY" /tmp/suites/gpu_h100_sanitizer_test.log | tail -12
tar czf $OUT/suites_logs.tgz -C /tmp/suites .
echo "suites done at $SECONDS s"
W=/tmp/bw && mkdir -p $W && tar xzf .carry_s23d/new_attention_bundle.tar.gz -C $W
R=$W/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R/_main/tools/bench:$R PYTHONUNBUFFERED=1 timeout 200 python3 $R/_main/tools/bench/attention.py \
  --grid=paper --dtypes=fp16,bf16 --head_dims=64,128 --causal=both --seqlens=1024,2048,4096,8192,16384 \
  --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=15 --host_calls=0 --noprofile_kernels --mode=bwd \
  --time_budget_s=150 --out_dir=/tmp/bw/res > $OUT/paper_bwd_new.log 2>&1
echo "grid rc=$? at $SECONDS s"; grep -E "^\[[0-9]+/" $OUT/paper_bwd_new.log | cut -c1-150
cp /tmp/bw/res/*.json $OUT/ 2>/dev/null
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
