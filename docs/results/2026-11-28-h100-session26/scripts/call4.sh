# Session 26 calls 4 and 6 (H100), right after calls 3 and 5 (which copied FA4's first wheel half to /root/keep):
# FlashAttention-4 installed from the two halves (../shared/anchors/fa4/README.md), then issue 16's
# decode table with every backend in one process on the same tensors: flashcore (contiguous, page
# 16, page 256), FA4 (the same three caches; page_table, num_splits=0), torch SDPA flash and cuDNN.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
cat /root/keep/cu13.part.* .fa4/b/cu13.part.* > /tmp/$(cat .fa4/b/BIG_WHEEL_NAME) &&
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 /tmp/*.whl .fa4/b/*.whl || exit 1
mkdir -p /tmp/fc && tar xJf .carry_fa4/flashcore_py.tar.xz -C /tmp/fc
export PYTHONPATH=/tmp/fc/bundle/runfiles/_main/py:/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
echo "installed at $SECONDS s"
timeout 540 python3 tools/bench/decode.py --fa4 --no_prefill --sweep_splits "" --out_dir $OUT 2>&1 | grep -v Warning | tee $OUT/decode_fa4.log
echo "done at $SECONDS s"
