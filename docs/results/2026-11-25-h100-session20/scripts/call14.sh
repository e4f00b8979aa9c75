#!/usr/bin/env bash
# Session 20, call 14 (H100): the paged-varlen routing sweep by page size (forward vs decode kernel).
set -u
mkdir -p /tmp/pb && tar xzf .carry_s20/paged_attention_bundle.tar.gz -C /tmp/pb
R=/tmp/pb/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
timeout 200 python3 tools/bench/decode.py --routes_only --route_pages 16,32,64,256 --route_rows 32,48,64,96,128 \
  --out_dir /tmp/decode 2>&1 | tail -26
