# Session 29 call 8 (H200): issue 16's decode rows at kernel head dims 64 and 256 on the final
# build (tools/bench/decode.py --head_dim, every backend in one process; the bar itself is d128's).
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$GPU"
case "$GPU" in *H200*) KIND=h200;; *) KIND=h100;; esac
mkdir -p /tmp/fc && tar xzf .carry_s29/$KIND/gpu_${KIND}_bundle.tar.gz -C /tmp/fc
P=/tmp/fc/bundle/runfiles/_main/py
for d in 64 256; do
  PYTHONPATH=$P timeout 200 python3 tools/bench/decode.py --head_dim $d --sweep_splits "" --no_prefill --out_dir /tmp/dd$d 2>&1 | grep -v Warning > $OUT/call8_${KIND}_decode_d$d.log
  cat $OUT/call8_${KIND}_decode_d$d.log | head -8
done
echo "done at $SECONDS s"
