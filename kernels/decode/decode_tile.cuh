// The decode kernel's (decode_kernel.cuh) building blocks: its online softmax on the mma.sync
// accumulator layout, the ways a CTA walks its keys, and the layout of its K / V stage tiles (the
// cp.async ring's swizzled rows or the TMA's boxes). Included only by decode_kernel.cuh.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/common/online_softmax.cuh"  // exp2_approx
#include "kernels/sm80/fwd_kernel.cuh"        // the swizzled tile layout

namespace flashcore {
namespace decode {

using fwd::swizzled;

// Online softmax over scores already in log2 units with masked entries at -inf, on the m16n8
// accumulator layout (acc[4 t + 2 h + e]: row group + 8 h, column 8 t + 2 tig + e). Scaling and
// masking happen before (so any sign of softmax_scale and any window work alike); this keeps
// the running max and sum of a thread's two rows.
template <int kNTiles>
struct RowSoftmax {
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.f, 0.f};

  // Scores -> unnormalised probabilities in place; alpha: the factor for the output rows.
  __device__ __forceinline__ void step(float (&s)[kNTiles * 4], float (&alpha)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = -INFINITY;
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) mx = fmaxf(mx, fmaxf(s[4 * t + 2 * h], s[4 * t + 2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(row_max[h], mx);
      // A row with no visible key so far: subtract 0 so exp2 gives 0, not NaN (-inf - -inf).
      const float m_base = m_new == -INFINITY ? 0.f : m_new;
      alpha[h] = exp2_approx(row_max[h] - m_base);
      float sum = 0.f;
#pragma unroll
      for (int t = 0; t < kNTiles; ++t) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = exp2_approx(s[4 * t + 2 * h + e] - m_base);
          s[4 * t + 2 * h + e] = p;
          sum += p;
        }
      }
      row_sum[h] = row_sum[h] * alpha[h] + sum;
      row_max[h] = m_new;
    }
  }
};

// How a CTA finds its keys, a compile-time choice so that each kernel carries only its own address
// arithmetic (a run-time address-order flag in the key-order kernel made page-16 decode 6-9%
// slower on an H100: docs/results/2026-11-24-h100-session16.md):
//  - kContiguous: rows of cache_capacity keys;
//  - kPagedKeyOrder: pages found through block_table, visited in key order;
//  - kPagedAddressOrder: pages visited in address order, from the split's block-table entries
//    sorted by decode_page_sort_kernel (tile_policy.h decode_page_sort, page_sort.cuh),
//    each key masked by its position (on the TMA walk only).
enum class KeyWalk { kContiguous, kPagedKeyOrder, kPagedAddressOrder };

// The paged walks on sm90a load K and V with the TMA (kTma): lane 0 of each warp issues some of a
// refill's boxes (box j of the block by warp j % warps), a box being min(page_size, block_n) rows
// (a page, or a block's part of one) x 64 columns of one kv head, so the warps no longer compute a 16-byte copy's
// address per row and chunk nor wait for its block-table entry; thread 0 arms the stage's mbarrier
// with the block's bytes. The stage tiles are then [column block of 64][block_n rows][64] with the
// TMA's 128-byte swizzle (kv_tile_offset). Rows past the last key (a partial last page, pages past
// it, which are not loaded) may hold anything, NaN included: their scores are masked, and their V
// rows are zeroed in shared memory before P V (0 x NaN would be NaN). The maps (K and V) are
// encoded per call by the launcher: over the cache as (head_dim, heads_kv, page_size, pages), so
// the columns past a predicated head dim arrive as zeros. Unused (zero) for the cp.async kernels.
// Measured against the cp.async walk on an H100 (docs/results/2026-11-28-h100-session28.md,
// three rounds in alternating processes, points of the HBM floor, random block tables): the
// single-sequence split rows d128 pages of 16-64 +0.5..+2.8 (B1 Hq32 page 16 89.4 -> 90.4%), key
// order alone +0.0..+1.9, page 256 -0.3..-0.6; d64 +0.3..+2.9 (page 256 -0.1..+1.0); d256
// +0.4..+2.0; the batched rows -0.7..+0.5.
struct DecodeKvMaps {
  CUtensorMap k, v;
};

// Offset (elements) of (row, 16-byte chunk) in a K / V stage tile: the cp.async ring's swizzled
// rows of head_dim columns, or the TMA's [column block][kBlockN rows][64 columns] tiles, 128-byte
// swizzled (chunk XOR row within 8 rows: ldmatrix over 8 consecutive rows stays conflict-free).
template <int kHeadDim, int kBlockN, bool kTma>
__device__ __forceinline__ int kv_tile_offset(int row, int chunk) {
  if constexpr (kTma) {
    return (chunk >> 3) * (kBlockN * 64) + row * 64 + (((chunk & 7) ^ (row & 7)) << 3);
  } else {
    return swizzled<kHeadDim>(row, chunk);
  }
}

}  // namespace decode
}  // namespace flashcore
