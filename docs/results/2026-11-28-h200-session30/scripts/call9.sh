# Session 30 call 9 (H200): issue 15's cuDNN bars at head dims 96 / 192 / 256 on the final build
# (190a4d5): forward then backward, bf16, S 1024 / 4096, causal and full, flashcore beside torch
# SDPA's cuDNN and flash backends in one process (tools/bench/attention.py).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
mkdir -p /tmp/final && tar xzf .carry_s30/h200/gpu_h200_bundle.tar.gz -C /tmp/final
P=/tmp/final/bundle/runfiles/_main/py
for m in fwd bwd; do
  PYTHONPATH=$P timeout 100 python3 tools/bench/attention.py --grid=paper --mode=$m --dtypes=bf16 --head_dims=96,192,256 \
    --seqlens=1024,4096 --backends=flashcore,cudnn,flash --rep_ms=60 --host_calls=0 --out_dir=$OUT/$m 2>&1 | tail -30
done
