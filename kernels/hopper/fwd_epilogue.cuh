// The sm90a forward's epilogue stores (fwd_kernel.cuh): where a consumer thread's two rows of a
// finished tile go -- lse, O (or its rounding residual) straight from registers, or O into the
// tile's swizzled shared buffer for the producer's TMA store. The rows' normalisation (inv) and
// lse come from OnlineSoftmax::finish.
#pragma once

#include <cstdint>

#include "kernels/common/mask.cuh"
#include "kernels/flash_fwd_api.h"

namespace flashcore {
namespace hopper {

// A consumer thread's rows of a tile: row_base and row_base + 8 (mma fragment rows), of sequence
// `seq` of batch entry `batch` and query head `head` -- or, pack-GQA (gqa_shift > 0), of k/v head
// `head`: row r is position r >> gqa_shift of query head (head << gqa_shift) + r % group. A
// thread's two rows differ by 8, so with groups of at most 8 they are one head's.
struct FwdThreadRows {
  int row_base, head, batch, gqa_shift;
  const SeqInfo& seq;

  // Whether a position is one of the sequence's: not past its end, nor before its start (the rows
  // a shifted first tile starts with, fwd_kernel.cuh kShiftTiles). One unsigned compare.
  __device__ __forceinline__ bool in_sequence(int pos) const {
    return static_cast<unsigned>(pos) < static_cast<unsigned>(seq.seqlen_q);
  }

  __device__ __forceinline__ int head_of(int row) const {
    return gqa_shift > 0 ? (head << gqa_shift) + (row & ((1 << gqa_shift) - 1)) : head;
  }

  // lse of the rows inside the sequence, by one lane of each quad. The unpacked kernels keep
  // their code as it was before pack-GQA (SASS-identical); the packed one finds each row's head
  // and position.
  template <bool kPackGqa>
  __device__ __forceinline__ void write_lse(const FwdParams& p, bool varlen, int lane, const float (&lse_row)[2]) const {
    if constexpr (kPackGqa) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_base + 8 * h, pos = row >> gqa_shift;
        float* lse = p.lse + lse_row0(varlen, p.total_q, p.seqlen_q, p.heads, batch, head_of(row), seq.row0_q);
        if (in_sequence(pos) && lane % 4 == 0) lse[pos] = lse_row[h];
      }
    } else {
      float* lse = p.lse + lse_row0(varlen, p.total_q, p.seqlen_q, p.heads, batch, head, seq.row0_q);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_base + 8 * h;
        if (in_sequence(row) && lane % 4 == 0) lse[row] = lse_row[h];
      }
    }
  }

  // O (or its rounding residual: `pack` says which) from registers straight to dst's rows in O's
  // layout, 4-byte pieces up to head_dim_v; rows that saw no key (no key blocks) get zeros.
  template <class Element, int kOTiles, bool kPackGqa, class Pack>
  __device__ __forceinline__ void store_rows(const FwdParams& p, void* dst, int lane, int n_blocks,
                                             const float (&o)[kOTiles * 4], const float (&inv)[2], Pack pack) const {
    // Unpacked: head_of(row) is the tile's head and pos the row (the base pointer is hoisted).
    Element* const tile_base = static_cast<Element*>(dst) + batch * p.o_batch_stride + head * p.o_head_stride;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_base + 8 * h, pos = row >> gqa_shift;
      if (in_sequence(pos)) {
        Element* base = kPackGqa ? static_cast<Element*>(dst) + batch * p.o_batch_stride + head_of(row) * p.o_head_stride
                                 : tile_base;
        Element* dst_row = base + static_cast<int64_t>(seq.row0_q + pos) * p.o_row_stride;
#pragma unroll
        for (int t = 0; t < kOTiles; ++t) {
          if (8 * t < p.head_dim_v) {  // n8 groups past the call's head_dim_v are not O's columns
            *reinterpret_cast<uint32_t*>(dst_row + 8 * t + 2 * (lane % 4)) =
                n_blocks > 0 ? pack(o[4 * t + 2 * h] * inv[h], o[4 * t + 2 * h + 1] * inv[h]) : 0u;
          }
        }
      }
    }
  }

  // O from registers in 8-byte pieces (the one-Q-buffer kernels' epilogue, fwd_kernel.cuh
  // kOFromRegisters; unpacked tiles): lanes 2i and 2i + 1 of a quad swap one 4-byte piece of the
  // n8 groups 2u and 2u + 1, so the even lane holds 4 consecutive columns of group 2u and the odd
  // lane 4 of group 2u + 1, and every store instruction fills whole 32-byte sectors (a quad's row
  // piece of two groups) instead of half of one. O's row stride and base are 16-byte aligned (the
  // TMA map of O every call encodes requires it).
  template <class Element, int kOTiles, class Pack>
  __device__ __forceinline__ void store_rows_x2(const FwdParams& p, int lane, int n_blocks, const float (&o)[kOTiles * 4],
                                                const float (&inv)[2], Pack pack) const {
    static_assert(kOTiles % 2 == 0, "n8 groups in pairs");
    Element* const tile_base = static_cast<Element*>(p.o) + batch * p.o_batch_stride + head * p.o_head_stride;
    const int quad_lane = lane % 4;
    const bool odd = quad_lane & 1;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_base + 8 * h;
      Element* dst_row = tile_base + static_cast<int64_t>(seq.row0_q + row) * p.o_row_stride;
#pragma unroll
      for (int u = 0; u < kOTiles / 2; ++u) {
        const int t0 = 2 * u, t1 = 2 * u + 1;
        const uint32_t v0 = n_blocks > 0 ? pack(o[4 * t0 + 2 * h] * inv[h], o[4 * t0 + 2 * h + 1] * inv[h]) : 0u;
        const uint32_t v1 = n_blocks > 0 ? pack(o[4 * t1 + 2 * h] * inv[h], o[4 * t1 + 2 * h + 1] * inv[h]) : 0u;
        const uint32_t recv = __shfl_xor_sync(0xffffffffu, odd ? v0 : v1, 1);
        const int t = odd ? t1 : t0;
        const int col = 8 * t + 2 * (quad_lane & 2);  // the even lane's column in its group
        if (row < seq.seqlen_q && 8 * t < p.head_dim_v) {
          *reinterpret_cast<uint2*>(dst_row + col) = odd ? make_uint2(recv, v1) : make_uint2(v0, recv);
        }
      }
    }
  }
};

// O, normalised and converted, into rows tile_row and tile_row + 8 of the tile's shared buffer
// in the TMA's swizzled layout: n8 group t is 16-byte chunk t % kChunks of column block
// t / kChunks; the swizzle XORs a chunk's index with address bits 7 and up (row r's line starts
// at r * kSwizzle).
template <class Traits, int kOTiles, int kSwizzle, int kBlockM>
__device__ __forceinline__ void write_o_tile_swizzled(unsigned char* o_tile, int tile_row, int lane,
                                                      const float (&o)[kOTiles * 4], const float (&inv)[2]) {
  constexpr int kChunks = kSwizzle / 16;
#pragma unroll
  for (int t = 0; t < kOTiles; ++t) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = tile_row + 8 * h;
      const int chunk = (t % kChunks) ^ ((r * kSwizzle / 128) % kChunks);
      const int offset = (t / kChunks) * (kBlockM * kSwizzle) + r * kSwizzle + chunk * 16 + (lane % 4) * 4;
      *reinterpret_cast<uint32_t*>(o_tile + offset) = Traits::pack2(o[4 * t + 2 * h] * inv[h], o[4 * t + 2 * h + 1] * inv[h]);
    }
  }
}

}  // namespace hopper
}  // namespace flashcore
