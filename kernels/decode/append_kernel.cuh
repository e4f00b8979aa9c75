// The in-place append of flash_attn_with_kvcache: new keys and values (batch, seqlen_new,
// heads_kv, head_dim) written into a contiguous or paged cache at positions cache_seqlens[b] ..
// cache_seqlens[b] + seqlen_new - 1, one launch before the decode kernels (same stream, so they
// read the appended rows). It replaced eight torch indexing ops a call: a decode step that appends
// (B1 Hq32 Hk8 d128, 4096 keys, H100, graph replay) went from 22.1 to 12.7 us contiguous and from
// 31.9 to 14.8 us with page 16 (docs/results/2026-11-24-h100-session16.md). Included only by
// decode_kernel.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/decode/decode_api.h"

namespace flashcore {
namespace decode {

constexpr int kAppendThreads = 128;

// Grid (ceil(seqlen_new * heads_kv * head_dim / 8 / kAppendThreads), batch): each thread copies
// one 16-byte chunk of K and the same chunk of V. The caller has checked the positions against
// the cache (kvcache._check_lengths) outside graph capture.
template <Arch kArch>
__global__ void __launch_bounds__(kAppendThreads) decode_append_kernel(const DecodeParams p) {
  const int b = blockIdx.y;
  const int chunks_per_row = p.head_dim / 8;
  const int64_t chunk = static_cast<int64_t>(blockIdx.x) * kAppendThreads + threadIdx.x;
  if (chunk >= static_cast<int64_t>(p.seqlen_new) * p.heads_kv * chunks_per_row) return;
  const int c = static_cast<int>(chunk % chunks_per_row);
  const int h = static_cast<int>((chunk / chunks_per_row) % p.heads_kv);
  const int i = static_cast<int>(chunk / (static_cast<int64_t>(chunks_per_row) * p.heads_kv));
  const int pos = p.cache_seqlens[b] + i;
  int64_t k_dst, v_dst;
  if (p.block_table != nullptr) {
    const int64_t page = p.block_table[b * p.block_table_stride + pos / p.page_size];
    const int row = pos % p.page_size;
    k_dst = page * p.k_page_stride + row * p.k_row_stride;
    v_dst = page * p.v_page_stride + row * p.v_row_stride;
  } else {
    const int64_t cache_row = p.cache_batch_idx == nullptr ? b : p.cache_batch_idx[b];
    k_dst = cache_row * p.k_page_stride + static_cast<int64_t>(pos) * p.k_row_stride;
    v_dst = cache_row * p.v_page_stride + static_cast<int64_t>(pos) * p.v_row_stride;
  }
  const int64_t k_src = b * p.k_new_strides[0] + i * p.k_new_strides[1] + h * p.k_new_strides[2] + c * 8;
  const int64_t v_src = b * p.v_new_strides[0] + i * p.v_new_strides[1] + h * p.v_new_strides[2] + c * 8;
  // 2-byte elements: offsets in elements, 16-byte chunks (rows and strides checked by the caller).
  const auto* k_new = static_cast<const uint16_t*>(p.k_new);
  const auto* v_new = static_cast<const uint16_t*>(p.v_new);
  auto* k_cache = const_cast<uint16_t*>(static_cast<const uint16_t*>(p.k_cache));
  auto* v_cache = const_cast<uint16_t*>(static_cast<const uint16_t*>(p.v_cache));
  *reinterpret_cast<uint4*>(k_cache + k_dst + h * p.k_head_stride + c * 8) = *reinterpret_cast<const uint4*>(k_new + k_src);
  *reinterpret_cast<uint4*>(v_cache + v_dst + h * p.v_head_stride + c * 8) = *reinterpret_cast<const uint4*>(v_new + v_src);
}

template <Arch kArch>
cudaError_t launch_decode_append(const DecodeParams& p, cudaStream_t stream) {
  const int64_t chunks = static_cast<int64_t>(p.seqlen_new) * p.heads_kv * (p.head_dim / 8);
  const int64_t blocks = (chunks + kAppendThreads - 1) / kAppendThreads;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  decode_append_kernel<kArch><<<dim3(static_cast<unsigned>(blocks), p.batch), kAppendThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace decode
}  // namespace flashcore
