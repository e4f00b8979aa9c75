// Host side of the KV-cache kernels (decode_kernel.cuh): which kernel a call launches (tile shape,
// key walk, TMA or cp.async), the TMA maps of a paged cache, and launch_decode, the entry point the
// generated instantiation TUs instantiate (kernels/defs.bzl), after the traits header of their
// dtype.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/decode/decode_kernel.cuh"
#include "kernels/hopper/tensor_map_encoder.h"

namespace flashcore {
namespace decode {

// The TMA maps of a paged cache (DecodeKvMaps): (head_dim, heads_kv, page_size, cache_rows) with
// boxes of (64 columns, 1 head, box_rows, 1 page), 128-byte swizzled. False where the driver
// refuses the cache's strides or alignment (the caller then takes the cp.async kernel).
// L2 promotion 128 bytes (a box row): at kernel head dim 64 a box row is a whole cache row of one kv
// head, and 256-byte promotion also fetched the next head's row (B1 Hk8 d64 page 256, H100: 81.3%
// of the HBM floor against 84.6%); at 128 and 256 it cost the H200 4-10 points of its floor on every
// paged cell (B8 Hq32 d128 page 256: 87.1% against 96.2%), where on the H100 it had measured 0.0-1.0
// ahead in key order (docs/results/2026-11-28-h200-session29.md).
inline bool encode_decode_kv_maps(const DecodeParams& p, int box_rows, DecodeKvMaps* maps) {
  const hopper::EncodeTiledFn encode = hopper::encode_tiled();
  if (encode == nullptr) return false;
  auto one = [&](CUtensorMap* map, const void* base, int64_t page_stride, int64_t row_stride, int64_t head_stride) {
    const cuuint64_t dims[4] = {static_cast<cuuint64_t>(p.head_dim), static_cast<cuuint64_t>(p.heads_kv),
                                static_cast<cuuint64_t>(p.page_size), static_cast<cuuint64_t>(p.cache_rows)};
    const cuuint64_t strides[3] = {static_cast<cuuint64_t>(head_stride) * 2, static_cast<cuuint64_t>(row_stride) * 2,
                                   static_cast<cuuint64_t>(page_stride) * 2};
    const cuuint32_t box[4] = {64, 1, static_cast<cuuint32_t>(box_rows), 1};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    if (head_stride <= 0 || row_stride <= 0 || page_stride <= 0) return false;
    return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(base), dims, strides, box, element_strides,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  };
  return one(&maps->k, p.k_cache, p.k_page_stride, p.k_row_stride, p.k_head_stride) &&
         one(&maps->v, p.v_cache, p.v_page_stride, p.v_row_stride, p.v_head_stride);
}

// Whether a paged call can take the TMA walk with key blocks of block_n: whole boxes of at least 8
// rows that tile the block (a page divides it or is a multiple of it) and no leftpad (blocks start
// on box boundaries).
constexpr bool decode_tma_fits(int page_size, int block_n, bool leftpad) {
  return !leftpad && page_size >= 8 && page_size % 8 == 0 && (block_n % page_size == 0 || page_size % block_n == 0);
}

// The tile shape of a launch: the unsplit ring, the address-order walk's, or the split one.
template <Arch kArch, int kHeadDim, KeyWalk kWalk, bool kUnsplit>
constexpr DecodeTileShape decode_launch_tile_shape() {
  return kUnsplit                                ? decode_unsplit_tile_shape(kArch, kHeadDim)
         : kWalk == KeyWalk::kPagedAddressOrder ? decode_sorted_tile_shape(kArch, kHeadDim)
                                                : decode_tile_shape(kArch, kHeadDim);
}

// The launches that have a TMA walk: sm90a paged decode query blocks (16 rows). The 64-row blocks
// of chunked prefill keep cp.async (with the TMA walk their kernels went to 255 registers and
// spilled 20-248 bytes; not measured).
template <Arch kArch, int kRowWarps, KeyWalk kWalk>
constexpr bool decode_has_tma_walk() {
  return kArch == Arch::kSm90a && kWalk != KeyWalk::kContiguous && kRowWarps == 1;
}

// Whether a call takes the TMA walk on this launch's tiles (one with decode_has_tma_walk), and its
// maps: where the boxes fit (decode_tma_fits) and the driver takes the cache's strides
// (encode_decode_kv_maps).
template <Arch kArch, int kHeadDim, int kRowWarps, KeyWalk kWalk, bool kUnsplit>
bool decode_tma_maps(const DecodeParams& p, DecodeKvMaps* maps) {
  static_assert(decode_has_tma_walk<kArch, kRowWarps, kWalk>(), "no TMA walk for this launch");
  constexpr int kBlockN = decode_launch_tile_shape<kArch, kHeadDim, kWalk, kUnsplit>().block_n;
  return decode_tma_fits(p.page_size, kBlockN, p.cache_leftpad != nullptr) &&
         encode_decode_kv_maps(p, std::min(p.page_size, kBlockN), maps);
}

// `programmatic`: launched as the programmatic dependent of the grid before it on the stream
// (captured into graphs as such). kTma: the TMA walk with `maps` (decode_tma_maps).
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps, KeyWalk kWalk, bool kUnsplit, bool kTma>
cudaError_t launch_decode_tiles(const DecodeParams& p, cudaStream_t stream, bool programmatic,
                                const DecodeKvMaps& maps) {
  constexpr DecodeTileShape kTile = decode_launch_tile_shape<kArch, kHeadDim, kWalk, kUnsplit>();
  constexpr int kBlockM = 16 * kRowWarps;
  // The unsplit ring asks at least decode_smem_floor: its CTAs per SM stay the tile's. The TMA walk:
  // 1 KiB for the tiles' alignment, the stages' barriers and the sorted tail slot.
  constexpr size_t kSmemBytes =
      std::max(decode_smem_bytes(kTile, kBlockM, kHeadDim) +
                   (kWalk == KeyWalk::kPagedAddressOrder ? kDecodeSortPages * sizeof(unsigned long long) : 0) +
                   (kTma ? 1024 + kTile.stages * sizeof(uint64_t) + 8 : 0),
               kUnsplit ? decode_smem_floor(kTile) : size_t{0});
  // The sm80 library also runs on 8.6 / 8.7 GPUs, whose CTAs get at most 99 KiB (tile_policy.h).
  static_assert(kArch == Arch::kSm90a || kSmemBytes <= 99 * 1024, "decode: more shared memory than an 8.x CTA gets");
  static_assert(kSmemBytes <= hopper::kSm90MaxDynamicSmemBytes, "decode: more shared memory than an sm90 CTA gets");
  // The unsplit ring's request (at least its floor) lets exactly ctas_per_sm CTAs share an SM.
  constexpr size_t kSmemHeld = kSmemBytes + kSm90SmemReservedPerCtaBytes;
  static_assert(!kUnsplit || (kTile.ctas_per_sm * kSmemHeld <= kSm90SmemPerSmBytes &&
                              (kTile.ctas_per_sm + 1) * kSmemHeld > kSm90SmemPerSmBytes),
                "decode: the unsplit ring's shared memory does not hold its CTAs per SM");
  constexpr auto kKernel = &decode_kernel<kArch, Traits, kHeadDim, kRowWarps, kTile.block_n, kTile.stages,
                                          kTile.ctas_per_sm, kWalk, kTile.warps, kTma>;
  const cudaError_t err = ensure_dynamic_smem<kKernel>(kSmemBytes);
  if (err != cudaSuccess) return err;
  const int rows = p.heads / p.heads_kv * p.seqlen_q;
  const int m_blocks = (rows + kBlockM - 1) / kBlockM;
  return launch_decode_grid(kKernel, dim3(m_blocks * p.num_splits, p.heads_kv, p.batch), dim3(kTile.warps * 32),
                            kSmemBytes, stream, programmatic, p, maps);
}

// A key-order launch, on the TMA walk where it applies.
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps, KeyWalk kWalk, bool kUnsplit>
cudaError_t launch_decode_key_walk(const DecodeParams& p, cudaStream_t stream) {
  DecodeKvMaps maps{};
  if constexpr (decode_has_tma_walk<kArch, kRowWarps, kWalk>()) {
    if (decode_tma_maps<kArch, kHeadDim, kRowWarps, kWalk, kUnsplit>(p, &maps)) {
      return launch_decode_tiles<kArch, Traits, kHeadDim, kRowWarps, kWalk, kUnsplit, true>(p, stream, false, maps);
    }
  }
  return launch_decode_tiles<kArch, Traits, kHeadDim, kRowWarps, kWalk, kUnsplit, false>(p, stream, false, maps);
}

// Each way of walking the keys is its own instantiation (KeyWalk). Address order (where the
// caller set up decode_page_sort's scratch and grid; sm90a decode blocks on the TMA walk only): the
// page sort grid, then the decode grid as its programmatic dependent.
template <Arch kArch, class Traits, int kHeadDim, int kRowWarps>
cudaError_t launch_decode_layout(const DecodeParams& p, cudaStream_t stream) {
  // Unsplit calls on sm90a (either query block): the two-stage ring (tile_policy.h
  // decode_unsplit_tile_shape), in key order (by rule an unsplit call never sorts its pages; a test
  // that forces address order keeps it).
  if constexpr (decode_unsplit_tile_shape(kArch, kHeadDim).stages != decode_tile_shape(kArch, kHeadDim).stages) {
    if (p.num_splits == 1 && !(p.sorted_pages != nullptr && p.page_sort_ctas > 0)) {
      return p.block_table == nullptr
                 ? launch_decode_key_walk<kArch, Traits, kHeadDim, kRowWarps, KeyWalk::kContiguous, true>(p, stream)
                 : launch_decode_key_walk<kArch, Traits, kHeadDim, kRowWarps, KeyWalk::kPagedKeyOrder, true>(p, stream);
    }
  }
  if (p.block_table == nullptr) {
    return launch_decode_key_walk<kArch, Traits, kHeadDim, kRowWarps, KeyWalk::kContiguous, false>(p, stream);
  }
  // Not for the 64-row chunked-prefill blocks (that kernel also spilled with it: 255 registers).
  if constexpr (decode_has_tma_walk<kArch, kRowWarps, KeyWalk::kPagedAddressOrder>()) {
    constexpr int kBlockN = decode_sorted_tile_shape(kArch, kHeadDim).block_n;
    DecodeKvMaps maps{};
    if (p.sorted_pages != nullptr && p.page_sort_ctas > 0 &&
        decode_page_walk_fits(true, p.heads / p.heads_kv * p.seqlen_q, p.page_size, kBlockN,
                              p.cache_leftpad != nullptr) &&
        decode_tma_maps<kArch, kHeadDim, kRowWarps, KeyWalk::kPagedAddressOrder, false>(p, &maps)) {
      constexpr auto sort = &decode_page_sort_kernel<kArch, kBlockN>;
      cudaError_t err = ensure_dynamic_smem<sort>(kDecodePageSortSmemBytes);
      if (err != cudaSuccess) return err;
      sort<<<p.page_sort_ctas, kDecodeSortThreads, kDecodePageSortSmemBytes, stream>>>(p);
      err = cudaGetLastError();
      if (err != cudaSuccess) return err;
      return launch_decode_tiles<kArch, Traits, kHeadDim, kRowWarps, KeyWalk::kPagedAddressOrder, false, true>(
          p, stream, true, maps);
    }
  }
  return launch_decode_key_walk<kArch, Traits, kHeadDim, kRowWarps, KeyWalk::kPagedKeyOrder, false>(p, stream);
}

}  // namespace decode

template <Arch kArch, DType kDType, int kHeadDim>
cudaError_t launch_decode(const DecodeParams& p, cudaStream_t stream) {
  using Traits = typename TraitsFor<kDType>::type;
  static_assert(sizeof(typename Traits::Element) == 2, "decode_smem_bytes counts 2-byte elements");
  // Any head dim up to the kernel's in whole 16-byte chunks (the columns past it predicated).
  if (p.head_dim <= 0 || p.head_dim > kHeadDim || p.head_dim % 8 != 0) return cudaErrorInvalidValue;
  if (p.batch <= 0 || p.heads <= 0 || p.heads_kv <= 0 || p.heads % p.heads_kv != 0 || p.seqlen_q <= 0) {
    return cudaErrorInvalidValue;
  }
  if (p.cache_seqlens == nullptr || p.num_splits < 1 || p.num_splits > kDecodeMaxSplits) return cudaErrorInvalidValue;
  if (p.block_table != nullptr && p.page_size <= 0) return cudaErrorInvalidValue;
  if (p.num_splits > 1 && (p.o_accum == nullptr || p.lse_accum == nullptr)) return cudaErrorInvalidValue;
  if (p.heads_kv > 65535 || p.batch > 65535) return cudaErrorInvalidConfiguration;
  if (p.check_facts != nullptr) return decode::launch_decode_check<kArch>(p, stream);
  if (p.k_new != nullptr && p.seqlen_new > 0) {
    const cudaError_t err = decode::launch_decode_append<kArch>(p, stream);
    if (err != cudaSuccess) return err;
  }
  const int rows = p.heads / p.heads_kv * p.seqlen_q;
  constexpr DecodeTileShape kTile = decode_tile_shape(kArch, kHeadDim);
  cudaError_t err;
  if constexpr (kTile.rows64_only) {  // no 16-row kernel (its four warps would split too short a block)
    err = decode::launch_decode_layout<kArch, Traits, kHeadDim, kDecodeWarps>(p, stream);
  } else {
    err = decode_row_warps(kTile, rows) == 1 ? decode::launch_decode_layout<kArch, Traits, kHeadDim, 1>(p, stream)
                                             : decode::launch_decode_layout<kArch, Traits, kHeadDim, kDecodeWarps>(p, stream);
  }
  if (err != cudaSuccess || p.num_splits == 1) return err;
  const int64_t out_rows = static_cast<int64_t>(p.batch) * p.heads * p.seqlen_q;
  const int64_t blocks = (out_rows + 3) / 4;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  // sm90a: the programmatic dependent of the split kernel.
  return decode::launch_decode_grid(&decode::decode_combine_kernel<kArch, Traits, kHeadDim>,
                                    dim3(static_cast<unsigned>(blocks)), dim3(128), 0, stream,
                                    kArch == Arch::kSm90a, p);
}

}  // namespace flashcore
