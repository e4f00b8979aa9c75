# Session 54 call 4: FlashInfer (flashinfer-python 0.7.2.post1) beside flashcore, torch SDPA flash
# (Call 4 ran this with the FlashInfer files under .carry_s54/fi; they moved to .carry_fi to keep each call under 64 MiB.)
# and cuDNN on issue 16's decode table (tools/bench/decode.py --flashinfer), HEAD's kernels.
# FlashInfer's JIT modules were built on the CPU machine (bring_flashinfer.sh) and travel in
# .carry_s54/fi with the package; the same paths are recreated here so that its ninja step finds
# them up to date (a module it lacks compiles here with this image's nvcc).
set -u
T0=$(date +%s)
mkdir -p /tmp/fi /tmp/head && tar xJf .carry_s54/head.tar.xz -C /tmp/head
mkdir -p /tmp/fi/site && tar xJf .carry_fi/fi/flashinfer_trim.tar.xz -C /tmp/fi/site
tar xJf .carry_fi/fi/ws.tar.xz -C /
SP=/tmp/fi/venv/lib/python3.11/site-packages
python3 -m pip install -q --no-index --no-deps --no-compile --target $SP .carry_fi/fi/wheels/*.whl 2>&1 | tail -2
CUDA_DIR=$(dirname $(dirname $(readlink -f $(command -v nvcc))))
ln -sfn $CUDA_DIR /tmp/fi/cuda
echo "nvcc at $CUDA_DIR; set up in $(( $(date +%s) - T0 )) s"
export PYTHONPATH=/tmp/head/py:/tmp/fi/site:$SP CUDA_HOME=/tmp/fi/cuda FLASHINFER_CUDA_ARCH_LIST=9.0a \
  FLASHINFER_WORKSPACE_BASE=/tmp/fi/ws PATH=$SP/bin:$PATH
python3 -c "import flashinfer, flashcore; print('flashinfer', flashinfer.__version__)"
timeout 420 python3 tools/bench/decode.py --flashinfer --no_prefill --sweep_splits "" --out_dir $OUT 2>&1 | grep -v "INFO\|Warning\|warn"
echo "done at $(( $(date +%s) - T0 )) s"
