// The backward's two row kernels, one lane group per row of the lse's layout, launched before and after
// the main kernel by both backward launchers: launch_bwd (kernels/sm80/bwd_launch.cuh) and the
// Hopper one (kernels/hopper/bwd_kernel.cuh). Numbered by launch order, 2 being the main kernel:
//   1. preprocess: D_i = rowsum(dO_i * O_i) - dlse_i in fp32 (O plus its rounding residual when
//      the forward kept one); zero the row's fp32 dQ accumulator (the columns the main kernel adds
//      to) and (deterministic mode) the dQ semaphore of its query block.
//   3. convert: dQ = dq_accum * scale in the input dtype;
//   4. with a sink, on the mma.sync backward only: its share of the sink's gradient from D.
// A head dim below kHeadDim (multiples of 8): they read and write only head_dim_v columns of O, dO
// and the residual and head_dim columns of dQ; dq_accum's rows stay kHeadDim wide (flash_bwd_api.h).
// They are apart from the main kernels because they have no tiling: each lane group maps its row to
// (batch, head, row) (RowOfStats) and walks one head-dim row of global memory.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/bwd_primitives.cuh"

namespace flashcore {
namespace bwd {

// Row r of lse's layout -- dense (batch, heads, seqlen_q), packed varlen (heads, total_q) -- as
// (batch b, head h, row i of the q tensor's batch entry b). Packed rows past the last sequence
// are not valid: never read (they may hold NaN) nor written.
struct RowOfStats {
  int64_t r;
  int b, h, i;
  bool valid;
  __device__ __forceinline__ RowOfStats(int64_t r_, int b_, int h_, int i_, bool valid_)
      : r(r_), b(b_), h(h_), i(i_), valid(valid_) {}
  __device__ __forceinline__ RowOfStats(const BwdParams& p, int64_t r_) : r(r_) {
    if (p.cu_seqlens_q != nullptr) {
      b = 0;  // packed: batch strides are 0, rows are absolute
      h = static_cast<int>(r / p.total_q);
      i = static_cast<int>(r % p.total_q);
      valid = h < p.heads && i < p.cu_seqlens_q[p.batch];
    } else {
      i = static_cast<int>(r % p.seqlen_q);
      const int64_t bh = r / p.seqlen_q;
      h = static_cast<int>(bh % p.heads);
      b = static_cast<int>(bh / p.heads);
      valid = b < p.batch;
    }
  }
};

// Rows of the preprocess / convert grids: every row of lse's layout.
inline int64_t rows_of_stats(const BwdParams& p) {
  return static_cast<int64_t>(p.heads) * (p.cu_seqlens_q != nullptr ? p.total_q : static_cast<int64_t>(p.batch) * p.seqlen_q);
}

// A row is walked by a group of row_lanes(kHeadDim) lanes, one 16-byte vector (8 elements of O
// and dO, 8 floats of dq_accum) each: 8 lanes at 64, 16 at 96 and 128, 32 at 192 and 256 (a power
// of two, so that groups tile a warp; lanes past kHeadDim idle). (One warp per row
// with 4-byte accesses, as before, measured 99-125 us for the 256-320 MB these passes move at 16k
// tokens and hidden 2048 -- 2.5-2.6 TB/s on the H100, 10-15% of a S 1024 backward.) Every
// tensor's rows start 16-byte aligned (the API checks it: py/flashcore/_backward.py).
constexpr int kRowKernelThreads = 256;
constexpr int row_lanes(int kernel_head_dim) {
  return kernel_head_dim <= 64 ? 8 : kernel_head_dim <= 128 ? 16 : 32;
}
inline int64_t row_kernel_blocks(const BwdParams& p, int kernel_head_dim) {
  const int rows_per_block = kRowKernelThreads / row_lanes(kernel_head_dim);
  return (rows_of_stats(p) + rows_per_block - 1) / rows_per_block;
}

// The shuffle mask of this lane's row group (the groups of a warp may leave at different rows).
template <int kLanes>
__device__ __forceinline__ unsigned row_group_mask() {
  if constexpr (kLanes == 32) {
    return 0xffffffffu;
  } else {
    return ((1u << kLanes) - 1u) << (threadIdx.x % 32 / kLanes * kLanes);
  }
}

template <class Element>
__device__ __forceinline__ void load8(float (&f)[8], const Element* src) {
  alignas(16) Element e[8];
  *reinterpret_cast<uint4*>(e) = *reinterpret_cast<const uint4*>(src);
#pragma unroll
  for (int j = 0; j < 8; ++j) f[j] = static_cast<float>(e[j]);
}

// Every __global__ of the mma.sync backward (these two, flash_bwd_kernel in bwd_kernel.cuh) takes
// the library's Arch as its first template argument although the code does not depend on it: the
// sm80, sm89, sm80_ptx and sm90a libraries all instantiate these kernels, and with one kernel
// name in several of the extension's modules the backward failed on an H100 (the PTX library's
// d128 kernels "no kernel image", the sm90a library's "invalid argument":
// docs/results/2026-11-23-h100-reach.md). One name per library, as the forward's
// flash_fwd_kernel<kArch, ...> always had.

// ---- 1. preprocess: D of one row per lane group; zero dq_accum's first zero_cols columns -----
// zero_cols: the columns the launcher's main kernel adds to (a multiple of 8, <= kHeadDim) -- the
// sm90a wgmma kernels' 32-column boxes up to head_dim, the mma.sync kernel's whole rows. The
// others are never added to nor read into dQ, so they are not written.
// One row's work (its lane group, every lane of which calls it), also for the fragment order's
// preprocess (kernels/hopper/bwd_dq_fragments.cuh), which zeroes dq_accum itself (zero_cols 0).
template <class Traits, int kHeadDim>
__device__ __forceinline__ void preprocess_row(const BwdParams& p, const RowOfStats& row, int zero_cols) {
  using Element = typename Traits::Element;
  constexpr int kLanes = row_lanes(kHeadDim);
  static_assert(kHeadDim <= 8 * kLanes && kHeadDim <= 256 && kHeadDim % 8 == 0, "one 16-byte vector of a row per lane");
  const int64_t r = row.r;
  const int c = threadIdx.x % kLanes * 8;
  const int i = row.i, h = row.h, b = row.b;
  const int64_t o_off = b * p.o_batch_stride + i * p.o_row_stride + h * p.o_head_stride + c;
  // O + its rounding residual when the forward kept one (FwdParams::o_resid): D from the rounded
  // O alone leaves a residue that dominates where dS = P (dP - D) nearly cancels. Columns past the
  // call's head_dim_v (O's and dO's; a multiple of 8) are not read.
  float acc = 0.f;
  if (c < p.head_dim_v) {
    float o[8], d[8];
    load8(o, static_cast<const Element*>(p.o) + o_off);
    load8(d, static_cast<const Element*>(p.dout) + b * p.do_batch_stride + i * p.do_row_stride + h * p.do_head_stride + c);
    if (p.o_resid != nullptr) {
      float res[8];
      load8(res, static_cast<const Element*>(p.o_resid) + o_off);
#pragma unroll
      for (int j = 0; j < 8; ++j) o[j] += res[j];
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) acc += o[j] * d[j];
  }
  const unsigned mask = row_group_mask<kLanes>();
#pragma unroll
  for (int off = kLanes / 2; off > 0; off /= 2) acc += __shfl_xor_sync(mask, acc, off);
  // dq_accum's rows are kHeadDim wide whatever the call's head_dim (flash_bwd_api.h).
  if (c < zero_cols) {
    float4* accum = reinterpret_cast<float4*>(p.dq_accum + r * kHeadDim + c);
    accum[0] = make_float4(0.f, 0.f, 0.f, 0.f);
    accum[1] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  if (c == 0) {
    p.dsum[r] = acc - (p.dlse != nullptr ? p.dlse[r] : 0.f);
    // Varlen: the caller zeroes the semaphores (a packed row does not know its sequence's index).
    if (p.dq_semaphore != nullptr && p.cu_seqlens_q == nullptr && i % kBlockM == 0) {
      const int m_blocks = (p.seqlen_q + kBlockM - 1) / kBlockM;
      p.dq_semaphore[(static_cast<int64_t>(b) * p.heads + h) * m_blocks + i / kBlockM] = 0;
    }
  }
}

// ---- 0. packed tails: zero the gradient rows that belong to no sequence ---------------------
// BwdParams::zero_packed_tails: the preprocess grid's last kTailBlocks CTAs (from tail_block0 on)
// write zeros to dq's rows past cu_seqlens_q[batch] and dk / dv's past cu_seqlens_k[batch]. Before,
// a caller that could not read those ends on the host (graph capture, torch.compile) zeroed all of
// dq, dk and dv: three gradient-sized writes, 531 us of a 12.0 ms backward of 64 packed sequences
// of 100..4000 tokens, d64 H32 causal (H200, docs/results/2026-11-30-h200-session50.md). The tail
// is usually empty: these CTAs then read two ints and leave.
constexpr int kTailBlocks = 32;
inline int tail_blocks(const BwdParams& p) { return p.zero_packed_tails && p.cu_seqlens_q != nullptr ? kTailBlocks : 0; }

// Rows [row_begin, rows) of a (rows, heads, cols) tensor with the given row / head strides (cols
// a multiple of 8 two-byte elements, rows 16-byte aligned): CTA `block` of the kTailBlocks takes
// rows row_begin + block, + kTailBlocks, ..., its threads a row's 16-byte pieces. (32-bit indices
// within a row: a flat 64-bit walk's divisions made each preprocess kernel ~2,000 instructions
// longer, 1.4 MB of the extension.)
__device__ __forceinline__ void zero_rows(void* base, int64_t row_stride, int64_t head_stride, int row_begin, int rows,
                                          int heads, int cols, int block) {
  const int pieces_per_head = cols / 8;
  const int pieces = heads * pieces_per_head;
  for (int r = row_begin + block; r < rows; r += kTailBlocks) {
    uint16_t* row = static_cast<uint16_t*>(base) + r * row_stride;
    for (int t = threadIdx.x; t < pieces; t += blockDim.x) {
      const int h = t / pieces_per_head;
      *reinterpret_cast<uint4*>(row + h * head_stride + (t - h * pieces_per_head) * 8) = make_uint4(0u, 0u, 0u, 0u);
    }
  }
}

// CTA `block` of the kTailBlocks (every thread calls it).
__device__ __forceinline__ void zero_packed_tails(const BwdParams& p, int block) {
  const int end_q = p.cu_seqlens_q[p.batch];
  const int end_k = p.cu_seqlens_k != nullptr ? p.cu_seqlens_k[p.batch] : p.total_k;
  zero_rows(p.dq, p.dq_row_stride, p.dq_head_stride, end_q, p.total_q, p.heads, p.head_dim, block);
  zero_rows(p.dk, p.dk_row_stride, p.dk_head_stride, end_k, p.total_k, p.heads_kv, p.head_dim, block);
  zero_rows(p.dv, p.dv_row_stride, p.dv_head_stride, end_k, p.total_k, p.heads_kv, p.head_dim_v, block);
}

// tail_block0: the row grid's size; CTAs from there on zero the packed tails (tail_blocks(p) of them).
template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(kRowKernelThreads) bwd_preprocess_kernel(const BwdParams p, int zero_cols,
                                                                           int tail_block0) {
  if (static_cast<int>(blockIdx.x) >= tail_block0) {
    zero_packed_tails(p, blockIdx.x - tail_block0);
    return;
  }
  constexpr int kLanes = row_lanes(kHeadDim);
  const RowOfStats row(p, static_cast<int64_t>(blockIdx.x) * (kRowKernelThreads / kLanes) + threadIdx.x / kLanes);
  if (!row.valid) return;  // the whole lane group: they share the row
  preprocess_row<Traits, kHeadDim>(p, row, zero_cols);
}

// ---- 3. convert: dQ = dq_accum * scale, one row per lane group ------------------------------
// dQ's 8 columns c .. c + 7 of a row from their fp32 accumulators, times the softmax scale.
template <class Traits>
__device__ __forceinline__ void store_dq_row(const BwdParams& p, const RowOfStats& row, int c, float4 a0, float4 a1) {
  using Element = typename Traits::Element;
  const float s = p.softmax_scale;
  uint4 packed;
  packed.x = Traits::pack2(a0.x * s, a0.y * s);
  packed.y = Traits::pack2(a0.z * s, a0.w * s);
  packed.z = Traits::pack2(a1.x * s, a1.y * s);
  packed.w = Traits::pack2(a1.z * s, a1.w * s);
  *reinterpret_cast<uint4*>(static_cast<Element*>(p.dq) + row.b * p.dq_batch_stride + row.i * p.dq_row_stride +
                            row.h * p.dq_head_stride + c) = packed;
}

template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(kRowKernelThreads) bwd_convert_dq_kernel(const BwdParams p) {
  constexpr int kLanes = row_lanes(kHeadDim);
  static_assert(kHeadDim <= 8 * kLanes && kHeadDim <= 256 && kHeadDim % 8 == 0, "one 16-byte vector of a row per lane");
  const RowOfStats row(p, static_cast<int64_t>(blockIdx.x) * (kRowKernelThreads / kLanes) + threadIdx.x / kLanes);
  const int c = threadIdx.x % kLanes * 8;
  // dQ has the call's head_dim columns; dq_accum's others are not dQ's.
  if (!row.valid || c >= p.head_dim) return;
  const float4* accum = reinterpret_cast<const float4*>(p.dq_accum + row.r * kHeadDim + c);
  store_dq_row<Traits>(p, row, c, accum[0], accum[1]);
}

// ---- 4. the sink's gradient on the mma.sync backward --------------------------------------
// Its main kernel keeps no fp32 sum of P o dP (its registers are spent: the sum made ptxas spill
// 16-44 bytes more in the sm80 d128 kernel), so with a sink (BwdParams::sink_partial) this kernel
// writes the share sum_i p_sink,i D_i with D from the rounded O (dsum + dlse, as FlashAttention
// takes it) into slot 0 of key block 0: one CTA per (batch entry, query head), a fixed-order sum.
template <Arch kArch>
__global__ void __launch_bounds__(kRowKernelThreads) bwd_sink_share_from_d_kernel(const BwdParams p) {
  const int b = blockIdx.x % p.batch, h = blockIdx.x / p.batch;
  const bool packed = p.cu_seqlens_q != nullptr;
  const int row0_q = packed ? p.cu_seqlens_q[b] : 0;
  const int rows = packed ? p.cu_seqlens_q[b + 1] - row0_q : p.seqlen_q;
  const int64_t r0 = lse_row0(packed, p.total_q, p.seqlen_q, p.heads, b, h, row0_q);
  const float sink = p.sink[h];
  float acc = 0.f;
  for (int i = threadIdx.x; i < rows; i += kRowKernelThreads) {
    const float d = p.dsum[r0 + i] + (p.dlse != nullptr ? p.dlse[r0 + i] : 0.f);
    acc += __expf(sink - p.lse[r0 + i]) * d;
  }
  __shared__ float warp_sums[kRowKernelThreads / 32];
#pragma unroll
  for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.f;
    for (int w = 0; w < kRowKernelThreads / 32; ++w) sum += warp_sums[w];
    p.sink_partial[(static_cast<int64_t>(b) * p.heads + h) * kSinkPartialSlots] = sum;
  }
}

}  // namespace bwd
}  // namespace flashcore
