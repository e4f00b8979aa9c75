// dQ of the sm90a backward through shared memory and one TMA reduce-add per query block
// (issue 14): the consumers no longer issue per-thread fp32 atomics in the middle of their GEMMs.
//
//   consumers: each stores one of the tile's two slices per query block (bwd_cta.cuh dq_tile_slice):
//     waits until that slice is free (dq_empty_barrier(j)), stores its raw fp32 dQ (64 rows x
//     32, 64 or 128 columns) with float2 stores, fences to the async proxy, arrives on
//     dq_full_barrier(j) and goes on with the next query block;
//   the dQ-writer warp (warp kDqWriterWarp of the producer warpgroup): for slice 0, then 1, waits
//     on its full barrier and lane 0 issues cp.reduce.async.bulk.tensor .add (fp32) of the
//     slice's 64-row boxes into dq_accum (one bulk group per slice); it then waits until each
//     group has *read* shared memory and releases that slice. The additions into L2 run under
//     the next block's GEMMs.
// One barrier pair per slice (barriers 5-8): with one pair for the whole tile (until session 14)
// a consumer's store also waited for the other consumer to reach it, a second cross-warpgroup
// rendezvous per step beside the dS^T exchange.
//
// The tile is kHeadDim / 32 boxes of [kBlockM rows][32 floats] (128-byte rows), 128-byte swizzled
// as the TMA expects with CU_TENSOR_MAP_SWIZZLE_128B: a warp's float2 store covers 8 rows x 32
// bytes, which unswizzled (rows 128 B apart) would fall on the same 8 banks (8-way conflict); with
// the swizzle the 16 chunks hit every 16-byte bank group exactly twice. But a 64-bit store is
// served per half-warp, whose 4 rows x 2 chunks meet only 4 of the 8 groups: ncu counts 4
// wavefronts per store where 2 would do (session 42: 33.5 M excessive of 407 M shared wavefronts
// in a d64 backward). Head dim 64's default backward therefore keeps dq_accum in fragment order (tile_policy.h
// bwd_dq_fragments, kernels/common/dq_accum_layout.h): float4 stores of the accumulator's own
// order, one 1-D bulk reduce a slice, its own row kernels (bwd_dq_fragments.cuh); +0.6..+4.1% on
// the default d64 backward (session 43). (8-column unswizzled boxes, whose float2 stores take 2
// wavefronts, made the TMA's reduce of 32-byte rows the bottleneck: -1..-14%, dropped.) The other
// tiles' dq_accum keeps its row-major (rows, head_dim) layout, so the shared convert kernel
// (kernels/sm80/bwd_kernel.cuh) is unchanged: the map's row bound clips rows past seqlen_q (dense)
// or past the packed tensor (varlen).
//
// Packed varlen: a block's rows past its sequence's end are the next sequence's rows of dq_accum
// and inside the map's bound. The consumers store exact zeros there (never the products, which
// could be NaN from the next sequence's data), and x + 0 == x for every x a sum that starts at +0
// can hold, so adding them changes nothing -- in any order, deterministic mode included.
//
// Deterministic mode: the semaphore wait moves from the consumers to the writer lane: it waits
// until the earlier key blocks of each 64-row block have added (the same fixed order as before),
// issues, waits for the reduce to *complete* and then increments the semaphores. The math
// warpgroups only stall when the single tile is still held.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/common/dq_accum_layout.h"
#include "kernels/hopper/tile_policy.h"
#include "kernels/hopper/tma_pipeline.cuh"

namespace flashcore {
namespace hopper {

// Named barriers of the backward: 1 = both consumers' dS^T (the lagged dQ: consumer 1's start,
// half a step behind consumer 0), 3 / 4 = each consumer's lse / D rows, 5 / 6 = dQ slice 0 / 1 is
// in the tile, 7 / 8 = the writer has read that slice, 9 / 10 = consumer 0 / 1 has read the single
// dS buffer of the 80-row tile; the lagged dQ's dS^T buffers: 2, 9-11 written, 12-15 read
// (bwd_kernel.cuh ds_written_barrier, ds_read_barrier) -- the 80-row tile's lagged dQ^T has no read
// barriers and uses 12 / 13 for its shared lse / D rows (stats_barrier).
__device__ __forceinline__ int dq_full_barrier(int slice) { return 5 + slice; }
__device__ __forceinline__ int dq_empty_barrier(int slice) { return 7 + slice; }
constexpr int kDqWriterWarp = 1;    // warp 0 of the producer warpgroup issues the TMA loads
constexpr int kDqBarrierThreads = 128 + 32;  // one consumer warpgroup + the writer warp
// Rows of the dq_accum map's box: one consumer slice's rows -- 64, or the whole 80-row block where
// dQ is computed transposed (bwd_dq_transposed).
constexpr int dq_box_rows(const BwdTilePolicy& t) { return bwd_dq_transposed(t) ? t.block_m : 64; }
// Query rows per deterministic-mode semaphore: 64 (kBwdBlockM, what the preprocess zeroes:
// ceil(seqlen_q / 64) of them per head), or one per block of 80 rows (fewer: the same buffer).
constexpr int dq_semaphore_rows(int block_m) { return block_m % 64 == 0 ? 64 : block_m; }

// A slice of a query block's dQ tile: columns [32 box_first, 32 (box_first + boxes)), rows
// [row0, row0 + 64). The consumers store and the writer adds exactly these.
struct DqSlice {
  int box_first, boxes, row0;
};

// 4-D tiled TMA reduce-add (shared -> global, the element type is the map's: fp32 here),
// bulk-group completion, coordinates innermost first.
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1,
                                                  int c2, int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(smem_u32(smem_src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// 1-D bulk reduce-add of `bytes` (a multiple of 16, both addresses 16-byte aligned) fp32 from
// shared memory into global memory, bulk-group completion: the fragment order's slabs.
__device__ __forceinline__ void bulk_reduce_add_f32(float* dst, const float* smem_src, int bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(dst),
               "r"(smem_u32(smem_src)), "r"(bytes)
               : "memory");
}

// Orders this thread's generic-proxy global accesses with its async-proxy (bulk copy) ones.
__device__ __forceinline__ void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

// A consumer's 64 x kCols dQ slice (the m64nkCols wgmma accumulator, kCols 32, 64 or 128: element
// 4t + 2h + e is row row0 + 16 warp + lane / 4 + 8h, column col0 + 8t + 2 (lane % 4) + e; col0 a
// multiple of 32) into the swizzled tile. Rows at or past valid_rows get zeros (see the varlen note above).
// 32-bit shared addresses, the box (t / 4) and row half (h) constant offsets: four address
// registers per thread; generic 64-bit pointers made ptxas hoist sixteen of them and spill.
template <int kBlockM, int kCols, bool kChecked>
__device__ __forceinline__ void store_dq_slice_rows(float* tile, const float (&dq)[kCols / 2], int row0, int col0,
                                                    int warp, int lane, int valid_rows) {
  const int r = row0 + warp * 16 + lane / 4;
  // row0 and 16 warp are multiples of 8: the swizzle's row phase (r % 8) is lane / 4.
  const int phase = lane / 4;
  const uint32_t row_addr = smem_u32(tile) + (col0 / 32) * (kBlockM * 128) + r * 128 + (lane % 2) * 8;
#pragma unroll
  for (int tq = 0; tq < 4; ++tq) {
    // 16-byte chunk 2 tq + (lane % 4) / 2 of the 128-byte box row, XOR-swizzled by the row phase.
    const uint32_t addr = row_addr + (((2 * tq + (lane % 4) / 2) ^ phase) * 16);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const bool keep = !kChecked || r + 8 * h < valid_rows;
      // box col0 / 32 + tb holds the slice's columns 32 tb .. 32 tb + 31
#pragma unroll
      for (int tb = 0; tb < kCols / 32; ++tb) {
        const int t = 4 * tb + tq;
        const float x = keep ? dq[4 * t + 2 * h] : 0.f;
        const float y = keep ? dq[4 * t + 2 * h + 1] : 0.f;
        asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr + tb * kBlockM * 128 + h * 8 * 128), "f"(x),
                     "f"(y)
                     : "memory");
      }
    }
  }
}

// Fragment order (tile_policy.h bwd_dq_fragments, kernels/common/dq_accum_layout.h): the tile is
// the block's 64-row slabs, a consumer's 64 x 64 slice (rows row0 ..) is slab row0 / 64, and its
// thread's elements 4t .. 4t + 3 are the slab's 16 bytes t * 128 + thread: 8 float4 stores, a
// warp's 512 contiguous bytes each (the fewest wavefronts), no swizzle. Rows at or past valid_rows
// get zeros.
// The tile's slab holding a slice's rows from row0 (the consumers store it, the writer adds it).
template <class Float>
__device__ __forceinline__ Float* dq_tile_slab(Float* tile, int row0) {
  return tile + (row0 / kDqSlabRows) * kDqSlabFloats;
}

template <bool kChecked>
__device__ __forceinline__ void store_dq_slice_fragments_rows(float* tile, const float (&dq)[32], int row0, int warp,
                                                              int lane, int valid_rows) {
  const int r = row0 + warp * 16 + lane / 4;
  const bool keep0 = !kChecked || r < valid_rows, keep1 = !kChecked || r + 8 < valid_rows;  // rows r, r + 8
  const uint32_t addr = smem_u32(dq_tile_slab(tile, row0)) + (warp * 32 + lane) * 16;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr + t * 2048), "f"(keep0 ? dq[4 * t] : 0.f),
                 "f"(keep0 ? dq[4 * t + 1] : 0.f), "f"(keep1 ? dq[4 * t + 2] : 0.f), "f"(keep1 ? dq[4 * t + 3] : 0.f)
                 : "memory");
  }
}

// Rows checked against valid_rows only in a block that reaches past them (the sequence's last): a
// warp-uniform branch, so the blocks inside the sequence store without a compare and a select per
// element (at d128 they were 20 ISETP + 20 LOP3 + 40 FSEL a step beside the 40 stores, ncu SASS).
template <int kBlockM, int kCols = 64, bool kFragments = false>
__device__ __forceinline__ void store_dq_slice(float* tile, const float (&dq)[kCols / 2], int row0, int col0, int warp,
                                               int lane, int valid_rows) {
  if constexpr (kFragments) {
    static_assert(kCols == kDqSlabCols, "a fragment-order slice is a whole slab");
    if (valid_rows >= kBlockM) {
      store_dq_slice_fragments_rows<false>(tile, dq, row0, warp, lane, valid_rows);
    } else {
      store_dq_slice_fragments_rows<true>(tile, dq, row0, warp, lane, valid_rows);
    }
  } else if (valid_rows >= kBlockM) {
    store_dq_slice_rows<kBlockM, kCols, false>(tile, dq, row0, col0, warp, lane, valid_rows);
  } else {
    store_dq_slice_rows<kBlockM, kCols, true>(tile, dq, row0, col0, warp, lane, valid_rows);
  }
}

// A consumer's dQ^T slice (the 80-row tile, bwd_dq_transposed): the m64nkRows accumulator of
// dQ^T = K^T dS^T, element 4t + 2h + e is column col0 + 16 warp + lane / 4 + 8h, query row
// 8t + 2 (lane % 4) + e, stored transposed into the same swizzled [boxes][kRows][32] tile as
// store_dq_slice, one float at a time: for one (t, h, e) the warp's 32 stores hit 8 distinct
// 16-byte chunks (the chunk's bit 0 from lane / 16, bits 1-2 XORed with the row's 2 (lane % 4))
// and 4 floats within each, every bank once. Rows at or past valid_rows get zeros.
template <int kRows, bool kChecked>
__device__ __forceinline__ void store_dq_slice_transposed_rows(float* tile, const float (&dqt)[kRows / 2], int col0,
                                                               int warp, int lane, int valid_rows) {
  const int col = col0 + warp * 16 + lane / 4;  // + 8h: the same 32-column box (16 warp + 15 < 32 within a warp pair)
  const int chunk0 = (col % 32) / 4;            // + 2h
  // Row 8t + 2 (lane % 4) + e: its swizzle phase (row % 8) does not depend on t, so the four
  // (e, h) addresses are computed once and t adds 1024 t, which ptxas folds into the store's
  // immediate offset, instead of 40 addresses live at once where registers are short.
  uint32_t addr[2][2];
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const int row = 2 * (lane % 4) + e;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      addr[e][h] = smem_u32(tile) + (col / 32) * (kRows * 128) + row * 128 + (((chunk0 + 2 * h) ^ row) * 16) +
                   (col % 4) * 4;
    }
  }
#pragma unroll
  for (int t = 0; t < kRows / 8; ++t) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const bool keep = !kChecked || 8 * t + 2 * (lane % 4) + e < valid_rows;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float x = keep ? dqt[4 * t + 2 * h + e] : 0.f;
        asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr[e][h] + 1024 * t), "f"(x) : "memory");
      }
    }
  }
}

template <int kRows>
__device__ __forceinline__ void store_dq_slice_transposed(float* tile, const float (&dqt)[kRows / 2], int col0,
                                                          int warp, int lane, int valid_rows) {
  if (valid_rows >= kRows) {
    store_dq_slice_transposed_rows<kRows, false>(tile, dqt, col0, warp, lane, valid_rows);
  } else {
    store_dq_slice_transposed_rows<kRows, true>(tile, dqt, col0, warp, lane, valid_rows);
  }
}

// The writer warp's loop over the CTA's query blocks. `block(i, head, m)` gives step i's query
// head and block, `slice(j)` slice j's columns and rows; deterministic mode also calls
// `waits(i)`: how many key blocks add to that block before this CTA (the semaphore value to wait
// for), and `semaphore(head, row_block)`.
// Fragment order: `first_slab(head)` is that query head's first slab in dq_accum (the sequence's).
template <int kBlockM, int kHeadDim, bool kDeterministic, class Block, class Slice, class Waits, class Semaphore,
          class FirstSlab>
__device__ __forceinline__ void run_dq_writer(const CUtensorMap* map, const float* tile, int steps, int lane, int head_dim,
                                              int seqlen_q, int row0_q, int batch_coord, Block block, Slice slice,
                                              Waits waits, Semaphore semaphore, FirstSlab first_slab) {
  constexpr int kMaxBoxes = 4;  // a slice is at most 128 columns
  constexpr bool kFragments = bwd_dq_fragments(kHeadDim, kDeterministic);
  // A head dim below kHeadDim: the boxes past it hold zeros (Q, dO and K are zero-filled there)
  // that the convert kernel never reads, so they are not added -- at 192 on the 256 kernel that is
  // a quarter of the dQ traffic into L2, which bounds the head-dim-256 backward.
  const int boxes = min(kHeadDim / 32, (head_dim + 31) / 32);
  constexpr int kSemRows = dq_semaphore_rows(kBlockM);
  constexpr int kRowBlocks = kBlockM / kSemRows;  // semaphores per query block
  named_barrier_arrive(dq_empty_barrier(0), kDqBarrierThreads);  // the tile starts free
  named_barrier_arrive(dq_empty_barrier(1), kDqBarrierThreads);
  for (int i = 0; i < steps; ++i) {
    int head, m;
    block(i, head, m);
    if constexpr (kDeterministic) {
      if (lane == 0) {
        const int before = waits(i);
#pragma unroll
        for (int rb = 0; rb < kRowBlocks; ++rb) {
          if ((m * kRowBlocks + rb) * kSemRows < seqlen_q) {
            const int* sem = semaphore(head, m * kRowBlocks + rb);
            while (bwd::ld_acquire(sem) < before) {
            }
          }
        }
        fence_proxy_async_global();  // the acquired adds of earlier key blocks, before ours
      }
    }
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      named_barrier_sync(dq_full_barrier(j), kDqBarrierThreads);
      if (lane == 0) {
        const DqSlice sl = slice(j);
        if constexpr (kFragments) {
          // The slab, unless wholly past the sequence (its rows would be the next slab's).
          const int row = m * kBlockM + sl.row0;
          if (row < seqlen_q) {
            bulk_reduce_add_f32(first_slab(head) + static_cast<int64_t>(row / kDqSlabRows) * kDqSlabFloats,
                                dq_tile_slab(tile, sl.row0), kDqSlabFloats * 4);
          }
        } else {
#pragma unroll
          for (int x = 0; x < kMaxBoxes; ++x) {
            const int b = sl.box_first + x;
            if (x < sl.boxes && b < boxes) {
              tma_reduce_add_4d(map, tile + b * kBlockM * 32 + sl.row0 * 32, b * 32, row0_q + m * kBlockM + sl.row0,
                                head, batch_coord);
            }
          }
        }
        tma_store_commit();
      }
    }
    // Slice 0's group has read the tile once at most one group is pending, slice 1's at none.
    if (lane == 0) tma_store_wait_read<1>();
    __syncwarp();
    if (i + 1 < steps) named_barrier_arrive(dq_empty_barrier(0), kDqBarrierThreads);
    if (lane == 0) tma_store_wait_read<0>();
    __syncwarp();
    if (i + 1 < steps) named_barrier_arrive(dq_empty_barrier(1), kDqBarrierThreads);
    if constexpr (kDeterministic) {
      if (lane == 0) {
        tma_store_wait_all();  // our additions are in global memory ...
        fence_proxy_async_global();
        __threadfence();  // ... before the semaphores say so
#pragma unroll
        for (int rb = 0; rb < kRowBlocks; ++rb) {
          if ((m * kRowBlocks + rb) * kSemRows < seqlen_q) {
            atomicAdd(const_cast<int*>(semaphore(head, m * kRowBlocks + rb)), 1);
          }
        }
      }
      __syncwarp();
    }
  }
  if (lane == 0) tma_store_wait_all();  // the tile stays valid until the last reduce is done
}

}  // namespace hopper
}  // namespace flashcore
