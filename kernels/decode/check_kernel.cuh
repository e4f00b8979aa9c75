// The length checks of an eager flash_attn_with_kvcache call on the GPU, in one kernel: per batch
// row the facts py/flashcore/kvcache.py turns into errors naming the argument. Through torch ops
// they were about a dozen launches, half of an eager decode step's 289 us
// (docs/results/2026-11-24-h100-session16.md). Included only by decode_kernel.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/decode/decode_api.h"

namespace flashcore {
namespace decode {

// Grid (batch), 128 threads. Row b of p.check_facts (int64, kDecodeCheckFacts a row):
// cache_seqlens[b], cache_seqlens[b] + seqlen_new, cache_leftpad[b] > cache_seqlens[b],
// cache_leftpad[b] (0 without), a block-table entry outside [0, cache_rows) among the pages
// positions 0 .. cache_seqlens[b] + seqlen_new - 1 use (within the table's width), and
// cache_batch_idx[b] outside [0, cache_rows).
template <Arch kArch>
__global__ void __launch_bounds__(128) decode_check_kernel(const DecodeParams p) {
  const int b = blockIdx.x;
  const int64_t seqlen = p.cache_seqlens[b];
  const int64_t end = seqlen + p.seqlen_new;
  int bad_page = 0;
  if (p.block_table != nullptr) {
    const int64_t width = p.cache_capacity / p.page_size;
    const int64_t used = min((end + p.page_size - 1) / p.page_size, width);
    for (int64_t j = threadIdx.x; j < used; j += blockDim.x) {
      const int entry = p.block_table[b * p.block_table_stride + j];
      bad_page |= entry < 0 || entry >= p.cache_rows;
    }
  }
  bad_page = __syncthreads_or(bad_page);
  if (threadIdx.x == 0) {
    int64_t* facts = p.check_facts + static_cast<int64_t>(b) * kDecodeCheckFacts;
    const int64_t leftpad = p.cache_leftpad == nullptr ? 0 : p.cache_leftpad[b];
    facts[0] = seqlen;
    facts[1] = end;
    facts[2] = leftpad > seqlen;
    facts[3] = leftpad;
    facts[4] = bad_page;
    facts[5] = p.cache_batch_idx != nullptr && (p.cache_batch_idx[b] < 0 || p.cache_batch_idx[b] >= p.cache_rows);
  }
}

template <Arch kArch>
cudaError_t launch_decode_check(const DecodeParams& p, cudaStream_t stream) {
  decode_check_kernel<kArch><<<p.batch, 128, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace decode
}  // namespace flashcore
