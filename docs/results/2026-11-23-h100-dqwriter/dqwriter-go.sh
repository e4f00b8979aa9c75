#!/usr/bin/env bash
# dqwriter branch (commit e8a4d4a) vs main (a8e9169): GPU suites + bwd bench.
set -u
OUT=${OUT:-/tmp/out}; W=/tmp/dqw; rm -rf $W; mkdir -p $W/s $W/bn $W/bb $W/logs
D=$PWD/.carry_dqw
tar xzf $D/suite_new.tgz -C $W/s; tar xzf $D/bench_new.tgz -C $W/bn; tar xzf $D/bench_base.tgz -C $W/bb
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $W/logs/gpu.txt
ROWS="bf16:d64:full:s1024,bf16:d64:full:s4096,bf16:d64:full:s16384,bf16:d64:causal:s1024,bf16:d64:causal:s4096,bf16:d64:causal:s16384,bf16:d128:full:s1024,bf16:d128:full:s4096,bf16:d128:full:s16384,bf16:d128:causal:s1024,bf16:d128:causal:s4096,bf16:d128:causal:s16384,fp16:d64:full:s1024,fp16:d64:full:s4096,fp16:d64:full:s16384,fp16:d64:causal:s1024,fp16:d64:causal:s4096,fp16:d64:causal:s16384,fp16:d128:full:s1024,fp16:d128:full:s4096,fp16:d128:full:s16384,fp16:d128:causal:s1024,fp16:d128:causal:s4096,fp16:d128:causal:s16384"
B="--mode=bwd --rows=$ROWS --warmup_ms=25 --rep_ms=100 --host_calls=0 --noprofile_kernels --nokernel_timing"
echo "=== suite bwd"; (cd $W/s && timeout ${T_BWD:-150} python3 bundle/run.py --only gpu_h100_bwd --timeout 140 --out $W/res_bwd) > $W/logs/suite_bwd.txt 2>&1; echo "rc=$?"; tail -3 $W/logs/suite_bwd.txt
echo "=== bench new"; (cd $W/bn && timeout ${T_BN:-150} python3 bundle/run.py -- $B --backends=flashcore,flashcore_det,flash,cudnn --out_dir=$W/bench_new) > $W/logs/bench_new.txt 2>&1; echo "rc=$?"; grep "^\[" $W/logs/bench_new.txt | cut -c1-200
echo "=== bench base"; (cd $W/bb && timeout ${T_BB:-90} python3 bundle/run.py -- $B --backends=flashcore,flashcore_det --out_dir=$W/bench_base) > $W/logs/bench_base.txt 2>&1; echo "rc=$?"; grep "^\[" $W/logs/bench_base.txt | cut -c1-160
echo "=== suite features"; (cd $W/s && timeout ${T_F:-100} python3 bundle/run.py --only gpu_h100_features --timeout 95 --out $W/res_feat) > $W/logs/suite_feat.txt 2>&1; echo "rc=$?"; tail -3 $W/logs/suite_feat.txt
echo "=== suite edge"; (cd $W/s && timeout ${T_E:-60} python3 bundle/run.py --only gpu_h100_edge --timeout 55 --out $W/res_edge) > $W/logs/suite_edge.txt 2>&1; echo "rc=$?"; tail -3 $W/logs/suite_edge.txt
echo "=== suite fuzz"; (cd $W/s && timeout ${T_Z:-90} python3 bundle/run.py --only gpu_h100_fuzz --timeout 85 --out $W/res_fuzz) > $W/logs/suite_fuzz.txt 2>&1; echo "rc=$?"; tail -3 $W/logs/suite_fuzz.txt
echo "=== suite sanitizer"; (cd $W/s && timeout ${T_S:-150} python3 bundle/run.py --only gpu_h100_sanitizer --timeout 145 --out $W/res_san) > $W/logs/suite_san.txt 2>&1; echo "rc=$?"; tail -4 $W/logs/suite_san.txt
cd $W && tar czf $OUT/results.tgz logs res_* bench_new bench_base 2>/dev/null; ls -la $OUT
