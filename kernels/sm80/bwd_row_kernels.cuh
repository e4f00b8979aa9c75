// The backward's two row kernels, one warp per row of the lse's layout, launched before and after
// the main kernel by both backward launchers: launch_bwd (kernels/sm80/bwd_kernel.cuh) and the
// Hopper one (kernels/hopper/bwd_kernel.cuh). Numbered by launch order, 2 being the main kernel:
//   1. preprocess: D_i = rowsum(dO_i * O_i) - dlse_i in fp32 (O plus its rounding residual when
//      the forward kept one); zero the row's fp32 dQ accumulator and (deterministic mode) the dQ
//      semaphore of its query block.
//   3. convert: dQ = dq_accum * scale in the input dtype.
// A head dim below kHeadDim (multiples of 8): they read and write only head_dim_v columns of O, dO
// and the residual and head_dim columns of dQ; dq_accum's rows stay kHeadDim wide (flash_bwd_api.h).
// They are apart from the main kernels because they have no tiling: each warp maps its row to
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

// Every __global__ of the mma.sync backward (these two, flash_bwd_kernel in bwd_kernel.cuh) takes
// the library's Arch as its first template argument although the code does not depend on it: the
// sm80, sm89, sm80_ptx and sm90a libraries all instantiate these kernels, and with one kernel
// name in several of the extension's modules the backward failed on an H100 (the PTX library's
// d128 kernels "no kernel image", the sm90a library's "invalid argument":
// docs/results/2026-11-23-h100-reach.md). One name per library, as the forward's
// flash_fwd_kernel<kArch, ...> always had.

// ---- 1. preprocess: one warp per query row ----------------------------------------------------
template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(128) bwd_preprocess_kernel(const BwdParams p) {
  using Element = typename Traits::Element;
  const RowOfStats row(p, static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32);
  const int64_t r = row.r;
  const int lane = threadIdx.x % 32;
  if (!row.valid) return;
  const int i = row.i, h = row.h, b = row.b;
  const auto* o = static_cast<const Element*>(p.o) + b * p.o_batch_stride + i * p.o_row_stride + h * p.o_head_stride;
  const auto* dout =
      static_cast<const Element*>(p.dout) + b * p.do_batch_stride + i * p.do_row_stride + h * p.do_head_stride;
  // O + its rounding residual when the forward kept one (FwdParams::o_resid): D from the rounded
  // O alone leaves a residue that dominates where dS = P (dP - D) nearly cancels.
  const auto* o_resid = p.o_resid == nullptr ? nullptr
      : static_cast<const Element*>(p.o_resid) + b * p.o_batch_stride + i * p.o_row_stride + h * p.o_head_stride;
  // Columns past the call's head_dim_v (O's and dO's; a multiple of 8, so a pair is in or out)
  // are not read.
  float acc = 0.f;
#pragma unroll
  for (int d = lane * 2; d < kHeadDim; d += 64) {
    if (d < p.head_dim_v) {
      float o0 = static_cast<float>(o[d]), o1 = static_cast<float>(o[d + 1]);
      if (o_resid != nullptr) o0 += static_cast<float>(o_resid[d]), o1 += static_cast<float>(o_resid[d + 1]);
      acc += o0 * static_cast<float>(dout[d]) + o1 * static_cast<float>(dout[d + 1]);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  // dq_accum's rows are kHeadDim wide whatever the call's head_dim (flash_bwd_api.h): all zeroed.
  float* accum_row = p.dq_accum + r * kHeadDim;
#pragma unroll
  for (int d = lane * 2; d < kHeadDim; d += 64) {
    *reinterpret_cast<float2*>(accum_row + d) = make_float2(0.f, 0.f);
  }
  if (lane == 0) {
    p.dsum[r] = acc - (p.dlse != nullptr ? p.dlse[r] : 0.f);
    // Varlen: the caller zeroes the semaphores (a packed row does not know its sequence's index).
    if (p.dq_semaphore != nullptr && p.cu_seqlens_q == nullptr && i % kBlockM == 0) {
      const int m_blocks = (p.seqlen_q + kBlockM - 1) / kBlockM;
      p.dq_semaphore[(static_cast<int64_t>(b) * p.heads + h) * m_blocks + i / kBlockM] = 0;
    }
  }
}

// ---- 3. convert: dQ = dq_accum * scale, one warp per query row --------------------------------
template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(128) bwd_convert_dq_kernel(const BwdParams p) {
  using Element = typename Traits::Element;
  const RowOfStats row(p, static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32);
  const int64_t r = row.r;
  const int lane = threadIdx.x % 32;
  if (!row.valid) return;
  const int i = row.i, h = row.h, b = row.b;
  auto* dq = static_cast<Element*>(p.dq) + b * p.dq_batch_stride + i * p.dq_row_stride + h * p.dq_head_stride;
  const float* accum_row = p.dq_accum + r * kHeadDim;
#pragma unroll
  for (int d = lane * 2; d < kHeadDim; d += 64) {
    if (d < p.head_dim) {  // dQ has the call's head_dim columns; dq_accum's others are not dQ's
      const float2 a = *reinterpret_cast<const float2*>(accum_row + d);
      *reinterpret_cast<uint32_t*>(dq + d) = Traits::pack2(a.x * p.softmax_scale, a.y * p.softmax_scale);
    }
  }
}

}  // namespace bwd
}  // namespace flashcore
