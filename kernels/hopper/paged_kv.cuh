// The Hopper forward's K / V loads from a paged KV cache (AttentionFeatures::block_table: vLLM's
// layout, k and v (num_pages, page_size, heads_kv, head_dim)). The tensor maps see the cache as
// num_pages batch entries of page_size rows (launch_fwd_tile), so a TMA box addresses (column,
// row in page, head, page); a key block is loaded as boxes of paged_box_rows rows, each inside one
// page, into the same swizzled tile a contiguous cache's single box fills. Chunked prefill and
// packed prefill batches over a paged cache then run at the forward's speed instead of on the
// mma.sync decode kernel (kernels/decode/).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"
#include "kernels/hopper/tma_pipeline.cuh"

namespace flashcore {
namespace hopper {

// Rows per box: the largest count dividing both the key block and the page, so that boxes tile
// the block and none crosses a page. Page sizes are multiples of kPagedKvPageMultiple (16), as is
// every forward key block (tile_policy.h), so a box is at least 16 rows: whole 8-row swizzle
// atoms, which keeps each box's destination on the atom alignment the swizzle pattern is computed
// from.
__host__ __device__ constexpr int paged_box_rows(int block_n, int page_size) {
  int a = block_n, b = page_size;
  while (b != 0) {
    const int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// One key block of a paged cache as the producer warp loads it: boxes of `box_rows` rows from key
// position pos0 = j * block_n, those holding keys (positions < seqlen_k: the rest are not loaded --
// K's columns there are masked and the caller zeroes V's rows); lane b holds box b's page.
struct PagedBlock {
  int pos0 = 0, box_rows = 0, boxes = 0;
  int row0 = 0;  // box 0's first row in its page

  PagedBlock() = default;
  __device__ __forceinline__ PagedBlock(int page_size, int box_rows_, int block_n, int j, int seqlen_k)
      : pos0(j * block_n),
        box_rows(box_rows_),
        boxes((min(block_n, seqlen_k - j * block_n) + box_rows_ - 1) / box_rows_),
        row0(static_cast<int>(static_cast<unsigned>(j * block_n) % static_cast<unsigned>(page_size))) {}

  // This lane's page: one coalesced read of the block's block-table entries by the whole warp (a
  // block has at most kBlockN / 16 <= 32 boxes), where the leader alone reading them box by box,
  // with a prefetch a block ahead, made ptxas spill its loop state (24 registers after
  // setmaxnreg) when the entries were held in an array.
  __device__ __forceinline__ int page_of_lane(const int* table_row, int page_size, int lane) const {
    return lane < boxes ? table_row[static_cast<unsigned>(pos0 + lane * box_rows) / static_cast<unsigned>(page_size)]
                        : 0;
  }

  template <int kHeadDim, class Element>
  __device__ __forceinline__ uint32_t bytes() const {
    return static_cast<uint32_t>(boxes * box_rows * kHeadDim * sizeof(Element));
  }

  // Called by the whole warp (the shuffles) with each lane's page; the leader issues box b's
  // copies into rows [b * box_rows, (b + 1) * box_rows) of each column block. Boxes never
  // straddle pages, so box b's row in its page steps by box_rows and wraps to 0 at the page's
  // end: no division per box (the `%` per box was ~40 instructions around MUFU.RCP and F2I on the
  // producer's path, 16 times a block at page 16).
  template <int kHeadDim, int kBlockN, class Element, int kSwizzleBytes>
  __device__ __forceinline__ void load(const CUtensorMap* map, Element* tile, uint64_t* bar, int lane_page, int head,
                                       int page_size, bool leader) const {
    constexpr int kCols = kSwizzleBytes / 2;
    int row = row0;
    for (int b = 0; b < boxes; ++b) {
      const int box_page = __shfl_sync(0xffffffffu, lane_page, b);
      if (leader) {
#pragma unroll
        for (int cb = 0; cb < kHeadDim / kCols; ++cb) {
          tma_load_4d(map, tile + (cb * kBlockN + b * box_rows) * kCols, bar, cb * kCols, row, head, box_page);
        }
      }
      row += box_rows;
      if (row >= page_size) row -= page_size;
    }
  }
};

}  // namespace hopper
}  // namespace flashcore
