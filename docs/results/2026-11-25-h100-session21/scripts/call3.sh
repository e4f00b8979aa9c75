#!/usr/bin/env bash
# Session 21, call 3 (H100): paged prefill with four box-issuing producer warps (pwarps) against
# HEAD (narrow): session 20's scripts/paged_locality.py per build, alternating twice; then the plain forward
# A/B (contiguous caches must not lose). Carry .carry_s21.
set -u
for rep in 1 2; do
  for v in narrow pwarps; do
    mkdir -p /tmp/pl_$v && tar xzf .carry_s21/${v}_attention_bundle.tar.gz -C /tmp/pl_$v
    R=/tmp/pl_$v/bundle/runfiles
    echo "== $v round $rep"
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 120 python3 docs/results/2026-11-25-h100-session20/scripts/paged_locality.py 2>&1 | tail -13
  done
done
CARRY=.carry_s21 VARIANTS="narrow pwarps" REPS=2 AB_ARGS="--dims 64,128 --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -14
