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
static_assert(bwd::kRowKernelThreads / bwd::row_lanes(kDqSlabCols) == kHalfSlabRows, "one CTA per half slab");

// The grid: every half slab of dq_accum.
inline int64_t fragment_row_kernel_blocks(const BwdParams& p) {
  return dq_fragment_floats(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, p.batch) / kDqSlabFloats * 2;
}

// This CTA's half slab: rows [i0, i0 + 32) of sequence (batch entry) b at head h, `rows` of them
// inside the sequence (none, or fewer, past its end or in a padding slab).
struct HalfSlab {
  float* slab;
  int half, b, h, i0, rows, row0_q;
  int64_t lse_row0;  // lse's row of the sequence's row 0 at head h
};

// Every thread of the CTA calls it (packed batches: a CTA-wide count).
__device__ __forceinline__ HalfSlab half_slab_of_block(const BwdParams& p) {
  const bool packed = p.cu_seqlens_q != nullptr;
  const int64_t slab = blockIdx.x / 2;
  HalfSlab u;
  u.half = blockIdx.x % 2;
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
  u.rows = seqlen - u.i0;
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
  const HalfSlab u = half_slab_of_block(p);
  float4* slab = reinterpret_cast<float4*>(u.slab);
#pragma unroll
  for (int k = threadIdx.x; k < kHalfSlabChunks; k += bwd::kRowKernelThreads) {
    slab[(k / 64) * 128 + 64 * u.half + k % 64] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  const bwd::RowOfStats row = half_slab_row(p, u, threadIdx.x / bwd::row_lanes(kDqSlabCols));
  if (row.valid) bwd::preprocess_row<Traits, kDqSlabCols>(p, row, 0);
}

// 3. convert: the half slab's chunks into shared memory in row order (rows 72 floats apart: a
// warp's float2 stores take the fewest wavefronts), then each row's 8 columns of a lane.
template <Arch kArch, class Traits>
__global__ void __launch_bounds__(bwd::kRowKernelThreads) bwd_convert_fragments_kernel(const BwdParams p) {
  constexpr int kStride = kDqSlabCols + 8;
  __shared__ __align__(16) float rows[kHalfSlabRows * kStride];
  const HalfSlab u = half_slab_of_block(p);
  if (u.rows <= 0) return;  // the whole CTA
  const float4* slab = reinterpret_cast<const float4*>(u.slab);
#pragma unroll
  for (int k = threadIdx.x; k < kHalfSlabChunks; k += bwd::kRowKernelThreads) {
    // Chunk k: 8-column group t, thread lt of the half's 64 -- its warp w holds rows 16 w + lane / 4
    // (+ 8), columns 8 t + 2 (lane % 4) (+ 1).
    const int t = k / 64, lt = k % 64;
    const float4 x = slab[t * 128 + 64 * u.half + lt];
    const int r = 16 * (lt / 32) + lt % 32 / 4, c = 8 * t + 2 * (lt % 4);
    *reinterpret_cast<float2*>(rows + r * kStride + c) = make_float2(x.x, x.y);
    *reinterpret_cast<float2*>(rows + (r + 8) * kStride + c) = make_float2(x.z, x.w);
  }
  __syncthreads();
  const int rr = threadIdx.x / bwd::row_lanes(kDqSlabCols), c = threadIdx.x % bwd::row_lanes(kDqSlabCols) * 8;
  const bwd::RowOfStats row = half_slab_row(p, u, rr);
  // dQ has the call's head_dim columns.
  if (!row.valid || c >= p.head_dim) return;
  const float* src = rows + rr * kStride + c;
  bwd::store_dq_row<Traits>(p, row, c, *reinterpret_cast<const float4*>(src),
                            *reinterpret_cast<const float4*>(src + 4));
}

}  // namespace hopper
}  // namespace flashcore
