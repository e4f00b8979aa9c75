# Session 28 call 10 (H100 asked for): issue 16's decode table on the final build (6d5ffe3's
# kernels): every backend in one process (flashcore, torch SDPA flash and cuDNN), contiguous /
# page 16 / page 256, then chunked prefill against the plain forward (tools/bench/decode.py; no
# split sweep, no FA4: device time).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
mkdir -p /tmp/fc && tar xzf .carry_s28d/h100/gpu_h100_bundle.tar.gz -C /tmp/fc
PYTHONPATH=/tmp/fc/bundle/runfiles/_main/py timeout 160 python3 tools/bench/decode.py --sweep_splits "" --out_dir $OUT 2>&1 | grep -v Warning | tee $OUT/decode_table.log
