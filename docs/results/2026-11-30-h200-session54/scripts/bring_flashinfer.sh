# Session 54: FlashInfer for the decode benchmark (tools/bench/decode.py --flashinfer), prepared on
# the CPU machine; call4.sh unpacks it on the GPU machine. What was run, in order:
#  1. wheels (no deps): flashinfer-python 0.7.2.post1 (62 MB, 332 MB of sources and headers in
#     data/), apache-tvm-ffi 0.1.15.post2 (cp311 here, cp312 for the GPU image), and for the
#     import einops, tabulate, click, nvidia-ml-py, ninja;
#  2. a trimmed package (11 MB xz): every .py, data/include, data/spdlog, cutlass's include and
#     tools/util/include, the cccl headers, and data/csrc's top-level files under 1000 KB (the
#     decode and prefill templates; none of its large subdirectories);
#  3. a venv with torch 2.13.0 (CPU) to drive FlashInfer's JIT, CUDA_HOME a symlink farm over the
#     build's pinned CUDA 13.0 tree (bazel external cuda/nvidia/cu13) with lib64/libcudart.so ->
#     libcudart.so.13 and an empty stub libcuda.so (soname libcuda.so.1, the driver's at run time);
#  4. FLASHINFER_CUDA_ARCH_LIST=9.0a FLASHINFER_WORKSPACE_BASE=/tmp/fi/ws: the three bf16 head-dim-128
#     modules the decode wrapper loads, built with their own spec objects:
#       flashinfer.jit.attention.modules.gen_batch_decode_module(bf16, bf16, bf16, int32, 128, 128, 0, False, False)
#       flashinfer.prefill._gen_batch_prefill_primary_module("fa2", <same>, False)            (tensor cores)
#       flashinfer.prefill._gen_batch_prefill_independent_paged_module("fa2", <same>, False)
#     (17 s, 85 s, 57 s on the 2 cores); ws.tar.xz holds /tmp/fi/ws.
set -eu
W=${1:-/tmp/fi}
mkdir -p $W/wheels && cd $W
pip download -q --no-deps flashinfer-python==0.7.2.post1 apache-tvm-ffi==0.1.15.post2
(cd wheels && pip download -q --no-deps --only-binary=:all: --python-version 3.12 apache-tvm-ffi==0.1.15.post2 \
   einops tabulate click nvidia-ml-py ninja)
mkdir -p pkg && (cd pkg && unzip -q -o ../flashinfer_python-0.7.2.post1-py3-none-any.whl)
cd pkg
{ find flashinfer \( -name "*.py" -o -name "*.json" -o -name "*.txt" \) | grep -v "^flashinfer/data/"
  find flashinfer/data/include flashinfer/data/spdlog flashinfer/data/cutlass/include \
       flashinfer/data/cutlass/tools/util/include -type f
  find flashinfer/data/csrc -maxdepth 1 -type f -size -1000k
  find flashinfer/data/cccl -type f \( -name "*.h" -o -name "*.cuh" -o -name "*.hpp" -o -name "*.inl" -o -path "*include*" \)
  ls flashinfer/data/*.py; find flashinfer_python*.dist-info -type f; } > ../list.txt
tar cJf ../flashinfer_trim.tar.xz -T ../list.txt
