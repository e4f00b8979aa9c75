// The Hopper kernels' swizzled shared-memory tiles, shared by the forward (fwd_kernel.cuh) and
// the backward (bwd_*.cuh): their layout (tile_swizzle_bytes), TMA loads (load_tile), zero fill
// (zero_tile_rows), wgmma operand descriptors (kmajor_desc, v_desc) and the position in a ring of
// mbarrier-guarded buffers (PipelineState).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/hopper/tma_pipeline.cuh"
#include "kernels/hopper/wgmma.cuh"

namespace flashcore {
namespace hopper {

// Swizzle width of the shared tiles, in bytes: a tile is [kHeadDim / (bytes / 2) column blocks]
// [rows][bytes / 2 elements], one swizzled row per (row, column block), as the TMA box writes it.
// 128 bytes (64 columns) where the head dim is a multiple of 64. At 96 that would be one and a half
// 128-byte atoms, and the PTX ISA draws a wgmma shared-memory operand in whole swizzle atoms
// ("Shared Memory Matrix Layout"): V is P V's MN-major B operand, N = the head dim, so its atom
// width should divide 96 (the hardware also reads an N that ends inside an atom -- tile_policy.h's
// narrow shapes -- but that would not remove the padding below). 64-byte atoms (32 columns; three
// per row) divide it. Q, K and O follow V there,
// so one layout, one TMA box width and one epilogue serve them all, and no shared memory holds
// padding columns (a half-empty second 128-byte block would make every tile a third larger).
constexpr int tile_swizzle_bytes(int head_dim) { return head_dim % 64 == 0 ? 128 : 64; }

// Loads a rows x kHeadDim tile (one TMA box per column block of kSwizzleBytes / 2 columns)
// starting at sequence row `row0`.
template <int kHeadDim, int kRows, class Element, int kSwizzleBytes = 128>
__device__ __forceinline__ void load_tile(const CUtensorMap* map, Element* tile, uint64_t* bar, int row0, int head,
                                          int batch) {
  constexpr int kCols = kSwizzleBytes / 2;
#pragma unroll
  for (int cb = 0; cb < kHeadDim / kCols; ++cb) {
    tma_load_4d(map, tile + cb * kRows * kCols, bar, cb * kCols, row0, head, batch);
  }
}

// load_tile's tile from a pack-GQA map (tensor_map.h make_packed_gqa_tensor_map): kRows rows
// = kRows / group sequence positions from `pos0`, each position's `group` heads of k/v head
// `head_kv` in turn, in the same lines as load_tile's rows.
template <int kHeadDim, int kRows, class Element, int kSwizzleBytes = 128>
__device__ __forceinline__ void load_tile_packed_gqa(const CUtensorMap* map, Element* tile, uint64_t* bar, int pos0,
                                                     int head_kv, int batch) {
  constexpr int kCols = kSwizzleBytes / 2;
#pragma unroll
  for (int cb = 0; cb < kHeadDim / kCols; ++cb) {
    tma_load_5d(map, tile + cb * kRows * kCols, bar, cb * kCols, 0, pos0, head_kv, batch);
  }
}

// Zeroes rows [from, kRows) of a kRows x kHeadDim tile laid out as load_tile writes it: one
// kSwizzleBytes line per (column block, row) -- the swizzle permutes 16-byte chunks within a line,
// so whole lines are zeroed in place. (Rows past a packed sequence or past the data, which the
// TMA loaded from the next sequence and may hold NaN.)
// `lane` of `lanes` threads sharing the work takes every lanes-th row.
template <int kHeadDim, int kRows, class Element, int kSwizzleBytes>
__device__ __forceinline__ void zero_tile_rows(Element* tile, int from, int lane = 0, int lanes = 1) {
  unsigned char* bytes = reinterpret_cast<unsigned char*>(tile);
  for (int cb = 0; cb < kHeadDim / (kSwizzleBytes / 2); ++cb) {
    for (int r = max(from, 0) + lane; r < kRows; r += lanes) {
      uint4* line = reinterpret_cast<uint4*>(bytes + (cb * kRows + r) * kSwizzleBytes);
#pragma unroll
      for (int c = 0; c < kSwizzleBytes / 16; ++c) line[c] = make_uint4(0u, 0u, 0u, 0u);
    }
  }
}

// Descriptor of the k16 slice kk (32 bytes of a swizzled row) of a K-major
// [column block][rows][kSwizzleBytes / 2] tile, starting at `row`: 8-row groups 8 * kSwizzleBytes
// apart (SBO). The slice's offset is added to the tile's descriptor (desc_advance) rather than to
// its address, so a k loop computes one descriptor and adds constants (wgmma.cuh says why).
// The tile by its 32-bit shared-memory address (the forward's Q K^T at head dims 192 and 256, whose
// addresses it broadcasts from lane 0: fwd_kernel.cuh issue_qk says why).
template <int kRows, int kSwizzleBytes = 128>
__device__ __forceinline__ uint64_t kmajor_desc_at(uint32_t tile_addr, int row, int kk) {
  constexpr int kSlicesPerRow = kSwizzleBytes / 32;
  const uint64_t base = smem_desc<kSwizzleBytes>(tile_addr + row * kSwizzleBytes, 16, 8 * kSwizzleBytes);
  return desc_advance(base, (kk / kSlicesPerRow) * (kRows * kSwizzleBytes) + (kk % kSlicesPerRow) * 32);
}
template <int kRows, int kSwizzleBytes = 128>
__device__ __forceinline__ uint64_t kmajor_desc(const void* tile, int row, int kk) {
  return kmajor_desc_at<kRows, kSwizzleBytes>(smem_u32(tile), row, kk);
}

// Descriptor of keys [16*kk, 16*kk + 16) of V as an MN-major B operand: 8-key groups
// 8 * kSwizzleBytes apart (SBO), head_dim column blocks (one swizzle atom wide) kBlockN *
// kSwizzleBytes apart (LBO).
template <int kBlockN, int kSwizzleBytes = 128>
__device__ __forceinline__ uint64_t v_desc_at(uint32_t tile_addr, int kk) {
  const uint64_t base = smem_desc<kSwizzleBytes>(tile_addr, kBlockN * kSwizzleBytes, 8 * kSwizzleBytes);
  return desc_advance(base, kk * 16 * kSwizzleBytes);
}
template <int kBlockN, int kSwizzleBytes = 128>
__device__ __forceinline__ uint64_t v_desc(const void* tile, int kk) {
  return v_desc_at<kBlockN, kSwizzleBytes>(smem_u32(tile), kk);
}

// Running position in a kStages-deep ring of mbarrier-guarded buffers.
template <int kStages>
struct PipelineState {
  int count = 0;
  __device__ __forceinline__ int stage() const { return count % kStages; }
  __device__ __forceinline__ uint32_t parity() const { return (count / kStages) & 1; }
};

}  // namespace hopper
}  // namespace flashcore
