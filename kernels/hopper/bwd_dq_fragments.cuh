// The row kernels of dq_accum in fragment order (kernels/common/dq_accum_layout.h; the sm90a
// head-dim-64 backward, tile_policy.h bwd_dq_fragments): the preprocess, which zeroes the
// accumulator, and the convert, which turns it into dQ. One CTA per half slab -- 32 rows of one
// (sequence, head), one row per 8-lane group as in the row-order kernels (bwd_row_kernels.cuh).
//
// Why by half slabs: the fragment order keeps a row's 8 columns of a group in four 8-byte pieces
// 64 bytes apart (two rows share each 16-byte chunk), so the row-order kernels' walk -- a lane
// group per row of lse's layout -- zeroed and read dq_accum in 8-byte pieces, 4 to a sector, and
// made the backward 5-9% slower at S 1024 than the stores it sped up gained (session 43). A half
// slab is 8 whole 1 KB runs of the slab (threads 64 half .. 64 half + 63 of each 8-column group),
// zeroed with 16-byte stores and read with 16-byte loads into shared memory, from where each row's
// 8 columns go out as one 16-byte store of dQ.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/dq_accum_layout.h"
#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_row_kernels.cuh"

namespace flashcore {
namespace hopper {

constexpr int kHalfSlabRows = kDqSlabRows / 2;
constexpr int kHalfSlabChunks = kHalfSlabRows * kDqSlabCols / 4;  // 16-byte chunks of a half slab
static_assert(bwd::kRowKernelThreads / bwd::row_lanes(kDqSlabCols) == kHalfSlabRows, "a CTA's lane groups: a half slab's rows");

// The convert takes kSlabUnits half slabs a CTA, both slabs' loads issued before either is staged
// in shared memory: with one, it moved 3.5 TB/s (ncu, d64, 16k tokens, H200: 73% of the HBM's 4.8);
// with two, 3.9 (53.2 -> 47.0 us, docs/results/2026-11-30-h200-session50.md). The preprocess keeps
// one half slab a CTA: two (their O / dO held for the reduction) took it to 60 registers and 69.5 us.
constexpr int kSlabUnits = 2;

// Every half slab of dq_accum.
__host__ __device__ inline int64_t fragment_half_slabs(const BwdParams& p) {
  return dq_fragment_floats(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, p.batch) / kDqSlabFloats * 2;
}
// The grids: the preprocess one CTA a half slab, the convert kSlabUnits.
inline int64_t fragment_preprocess_blocks(const BwdParams& p) { return fragment_half_slabs(p); }
inline int64_t fragment_convert_blocks(const BwdParams& p) {
  return (fragment_half_slabs(p) + kSlabUnits - 1) / kSlabUnits;
}

// Half slab `index`: rows [i0, i0 + 32) of sequence (batch entry) b at head h, `rows` of them
// inside the sequence (none, or fewer, past its end or in a padding slab, or past the last slab).
struct HalfSlab {
  float* slab;
  int half, b, h, i0, rows, row0_q;
  int64_t lse_row0;  // lse's row of the sequence's row 0 at head h
};

// Every thread of the CTA calls it (packed batches: a CTA-wide count). index < halves (the
// fragment_half_slabs count); past it the CTA's last unit has no slab (rows 0).
__device__ __forceinline__ HalfSlab half_slab_of(const BwdParams& p, int64_t index, int64_t halves) {
  const bool packed = p.cu_seqlens_q != nullptr;
  const bool real = index < halves;
  if (!real) index = halves - 1;  // computed as the last one's, then emptied below
  const int64_t slab = index / 2;
  HalfSlab u;
  u.half = static_cast<int>(index % 2);
  u.slab = p.dq_accum + slab * kDqSlabFloats;
  int seqlen, slab_in_seq;
  if (packed) {
    const int64_t per_head = dq_slabs_per_head_packed(p.total_q, p.batch);
    u.h = static_cast<int>(slab / per_head);
    const int64_t s = slab % per_head;
    // The sequence whose first slab is the last at or before s (an empty sequence's own slab holds
    // no rows; its predecessor's end before it). First slabs grow with b, so the sequences at or
    // before s are a prefix: every thread tests one (blockDim.x at a time) and the CTA counts them.
    // One round of loads, where one thread's binary search made log2(batch) dependent ones (six L2
    // round trips a CTA at 64 sequences, about 3 us before the CTA's first data load;
    // docs/results/2026-11-30-h200-session50.md). Every thread of the CTA calls this.
    int count = 0;
    for (int base = 0; base < p.batch; base += blockDim.x) {
      const int b = base + static_cast<int>(threadIdx.x);
      count += __syncthreads_count(b < p.batch && dq_seq_first_slab_packed(__ldg(p.cu_seqlens_q + b), b) <= s);
      if (count < base + static_cast<int>(blockDim.x)) break;  // the prefix ended in this chunk (count is the CTA's)
    }
    const int lo = count - 1;
    u.b = lo;
    u.row0_q = __ldg(p.cu_seqlens_q + lo);
    seqlen = __ldg(p.cu_seqlens_q + lo + 1) - u.row0_q;
    slab_in_seq = static_cast<int>(s - dq_seq_first_slab_packed(u.row0_q, lo));
  } else {
    const int per_seq = dq_slabs_per_seq_dense(p.seqlen_q);
    const int64_t bh = slab / per_seq;
    u.b = static_cast<int>(bh / p.heads);
    u.h = static_cast<int>(bh % p.heads);
    u.row0_q = 0;
    seqlen = p.seqlen_q;
    slab_in_seq = static_cast<int>(slab % per_seq);
  }
  u.i0 = slab_in_seq * kDqSlabRows + u.half * kHalfSlabRows;
  u.rows = real ? seqlen - u.i0 : 0;
  u.lse_row0 = lse_row0(packed, p.total_q, p.seqlen_q, p.heads, u.b, u.h, u.row0_q);
  return u;
}

// Row rr of the half slab in RowOfStats' terms (packed: absolute row, batch entry 0).
__device__ __forceinline__ bwd::RowOfStats half_slab_row(const BwdParams& p, const HalfSlab& u, int rr) {
  const bool packed = p.cu_seqlens_q != nullptr;
  const int i = u.i0 + rr;
  return bwd::RowOfStats(u.lse_row0 + i, packed ? 0 : u.b, u.h, packed ? u.row0_q + i : i, rr < u.rows);
}

// 1. preprocess: the half slab zeroed whole (rows past the sequence too: they are its own), then
// each row's D (and the dense semaphores) as the row-order preprocess.
// tail_block0: the half slabs' grid; CTAs from there on zero the packed tails (bwd::zero_packed_tails).
template <Arch kArch, class Traits>
__global__ void __launch_bounds__(bwd::kRowKernelThreads) bwd_preprocess_fragments_kernel(const BwdParams p,
                                                                                          int tail_block0) {
  if (static_cast<int>(blockIdx.x) >= tail_block0) {
    bwd::zero_packed_tails(p, blockIdx.x - tail_block0);
    return;
  }
  const HalfSlab u = half_slab_of(p, blockIdx.x, tail_block0);
  float4* slab = reinterpret_cast<float4*>(u.slab);
#pragma unroll
  for (int k = threadIdx.x; k < kHalfSlabChunks; k += bwd::kRowKernelThreads) {
    slab[(k / 64) * 128 + 64 * u.half + k % 64] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  const bwd::RowOfStats row = half_slab_row(p, u, threadIdx.x / bwd::row_lanes(kDqSlabCols));
  if (row.valid) bwd::preprocess_row<Traits, kDqSlabCols>(p, row, 0);
}

// 3. convert: each half slab's chunks into shared memory in row order (rows 72 floats apart: a
// warp's float2 stores take the fewest wavefronts), then each row's 8 columns of a lane.
template <Arch kArch, class Traits>
__global__ void __launch_bounds__(bwd::kRowKernelThreads) bwd_convert_fragments_kernel(const BwdParams p) {
  constexpr int kStride = kDqSlabCols + 8;
  constexpr int kChunksPerThread = kHalfSlabChunks / bwd::kRowKernelThreads;
  static_assert(kHalfSlabChunks % bwd::kRowKernelThreads == 0, "whole chunks a thread");
  __shared__ __align__(16) float rows[kSlabUnits][kHalfSlabRows * kStride];
  const int64_t halves = fragment_half_slabs(p);
  HalfSlab u[kSlabUnits];
  float4 x[kSlabUnits][kChunksPerThread];
#pragma unroll
  for (int s = 0; s < kSlabUnits; ++s) {
    u[s] = half_slab_of(p, static_cast<int64_t>(blockIdx.x) * kSlabUnits + s, halves);
    if (u[s].rows > 0) {
      const float4* slab = reinterpret_cast<const float4*>(u[s].slab);
#pragma unroll
      for (int j = 0; j < kChunksPerThread; ++j) {
        const int k = threadIdx.x + j * bwd::kRowKernelThreads;
        x[s][j] = slab[(k / 64) * 128 + 64 * u[s].half + k % 64];
      }
    }
  }
#pragma unroll
  for (int s = 0; s < kSlabUnits; ++s) {
    if (u[s].rows <= 0) continue;  // uniform over the CTA (slab s's)
#pragma unroll
    for (int j = 0; j < kChunksPerThread; ++j) {
      // Chunk k: 8-column group t, thread lt of the half's 64 -- its warp w holds rows 16 w + lane / 4
      // (+ 8), columns 8 t + 2 (lane % 4) (+ 1).
      const int k = threadIdx.x + j * bwd::kRowKernelThreads;
      const int t = k / 64, lt = k % 64;
      const int r = 16 * (lt / 32) + lt % 32 / 4, c = 8 * t + 2 * (lt % 4);
      *reinterpret_cast<float2*>(rows[s] + r * kStride + c) = make_float2(x[s][j].x, x[s][j].y);
      *reinterpret_cast<float2*>(rows[s] + (r + 8) * kStride + c) = make_float2(x[s][j].z, x[s][j].w);
    }
  }
  __syncthreads();
  const int rr = threadIdx.x / bwd::row_lanes(kDqSlabCols), c = threadIdx.x % bwd::row_lanes(kDqSlabCols) * 8;
  // dQ has the call's head_dim columns.
  if (c >= p.head_dim) return;
#pragma unroll
  for (int s = 0; s < kSlabUnits; ++s) {
    const bwd::RowOfStats row = half_slab_row(p, u[s], rr);
    if (!row.valid) continue;
    const float* src = rows[s] + rr * kStride + c;
    bwd::store_dq_row<Traits>(p, row, c, *reinterpret_cast<const float4*>(src),
                              *reinterpret_cast<const float4*>(src + 4));
  }
}

}  // namespace hopper
}  // namespace flashcore
