#!/bin/bash
# One device call (branch decodeperf @87ec2a5): decode bench with the shared-memory block table
# (default), the KV-cache suite on it, then the old global row-by-row table loads, then the
# default plus an L2 prefetch one block ahead. Each step has its own timeout.
C=$(cd "$(dirname "$0")" && pwd)
L=/tmp/logs; mkdir -p $L
( timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv ) > $L/gpu.txt 2>&1
mkdir -p /tmp/b /tmp/t
( cd /tmp/b && tar xzf $C/decode_bundle.tar.gz ) ; ( cd /tmp/t && tar xzf $C/gpu_h100_bundle.tar.gz )
fin() { tar czf $OUT/logs.tgz -C /tmp logs; cp $L/*.log $OUT/ 2>/dev/null; }
cd /tmp/b
echo "== smem table (default) $(date +%T)"
timeout 180 python3 bundle/run.py -- --out_dir $L/smem --no_prefill --sweep_splits 4,8,16,33 --sweep_paged 4,8,16,29,33 --sweep_full 2 > $L/bench_smem.log 2>&1; echo "rc=$? $(date +%T)" >> $L/bench_smem.log
grep -v "^ *splits" $L/bench_smem.log | tail -8
fin
echo "== kvcache suite $(date +%T)"
cd /tmp/t
timeout 140 python3 bundle/run.py --only gpu_h100_kvcache --timeout 130 --out $L/suite > $L/suite.log 2>&1; echo "rc=$? $(date +%T)" >> $L/suite.log
tail -3 $L/suite.log
fin
cd /tmp/b
echo "== global table (old path) $(date +%T)"
FLASHCORE_DECODE_TABLE=global timeout 90 python3 bundle/run.py -- --out_dir $L/global --no_sdpa --no_prefill --sweep_splits "" --sweep_paged 4,16 --sweep_full "" > $L/bench_global.log 2>&1; echo "rc=$? $(date +%T)" >> $L/bench_global.log
grep -v "^ *splits" $L/bench_global.log | tail -7
fin
echo "== smem table + L2 prefetch $(date +%T)"
FLASHCORE_DECODE_PREFETCH=1 timeout 110 python3 bundle/run.py -- --out_dir $L/prefetch --no_sdpa --no_prefill --sweep_splits 4,16,33 --sweep_paged 4,8,16,29 --sweep_full 2 > $L/bench_prefetch.log 2>&1; echo "rc=$? $(date +%T)" >> $L/bench_prefetch.log
grep -v "^ *splits" $L/bench_prefetch.log | tail -7
fin
echo "== done $(date +%T)"
exit 0
