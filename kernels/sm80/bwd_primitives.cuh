// Device building blocks of the backward's kernels, apart from them so that bwd_kernel.cuh holds
// the main kernel's algorithm and its launch, and so that what several kernels use has one
// definition: the row kernels (bwd_row_kernels.cuh) take kBlockM, the Hopper backward
// (kernels/hopper/bwd_kernel.cuh) lse_log2, ld_acquire and atomic_add2.
//   - kBlockM, the query block: rows per main-kernel step and per deterministic-mode dQ semaphore
//     (the preprocess zeroes one semaphore per block, the main kernel takes turns on it);
//   - mma.sync operand loads (ldmatrix) from the forward's swizzled shared-memory tiles;
//   - the 4-byte cp.async of lse / D rows, the acquire load of a dQ semaphore, the fp32 dQ
//     atomics, the lse in the log2 domain.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/flash_bwd_api.h"
#include "kernels/sm80/fwd_kernel.cuh"

namespace flashcore {
namespace bwd {

using fwd::cp_async_commit;
using fwd::cp_async_wait;
using fwd::ldmatrix_x4;
using fwd::ldmatrix_x4_trans;
using fwd::load_tile_async;
using fwd::smem_u32;
using fwd::swizzled;

constexpr int kBlockM = kBwdBlockM;  // query rows per main-kernel step and per dQ semaphore

// A operand (16 rows x 16 cols, row-major) from a swizzled [rows][kHeadDim] tile.
template <int kHeadDim, class Element>
__device__ __forceinline__ void load_a(uint32_t (&a)[4], const Element* tile, int row0, int kk, int lane) {
  const int row = row0 + (lane % 8) + ((lane / 8) % 2) * 8;
  ldmatrix_x4(a, smem_u32(tile + swizzled<kHeadDim>(row, kk * 2 + lane / 16)));
}

// B operands of two n8 tiles (n0..n0+15) for k16 step kk, from a tile stored [n][k] (k = head dim).
// b[0], b[1]: n-tile n0..n0+7; b[2], b[3]: n0+8..n0+15.
template <int kHeadDim, class Element>
__device__ __forceinline__ void load_b_nk(uint32_t (&b)[4], const Element* tile, int n0, int kk, int lane) {
  const int n = n0 + (lane % 8) + (lane / 16) * 8;
  ldmatrix_x4(b, smem_u32(tile + swizzled<kHeadDim>(n, kk * 2 + (lane / 8) % 2)));
}

// B operands of two n8 tiles (head-dim columns dn*16..dn*16+15) for the k16 rows k0..k0+15, from a
// tile stored [k][n] (n = head dim).
template <int kHeadDim, class Element>
__device__ __forceinline__ void load_b_kn(uint32_t (&b)[4], const Element* tile, int k0, int dn, int lane) {
  const int k = k0 + (lane % 8) + ((lane / 8) % 2) * 8;
  ldmatrix_x4_trans(b, smem_u32(tile + swizzled<kHeadDim>(k, dn * 2 + lane / 16)));
}

// 4-byte cp.async (.ca: the only cache mode with sizes below 16); src_bytes = 0 writes a zero.
__device__ __forceinline__ void cp_async_4(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

// lse as the main kernel uses it: times log2(e); a row that sees no key has lse = -inf, and +inf
// makes its P exactly 0 (exp2(-inf)).
__device__ __forceinline__ float lse_log2(float l) { return l == -INFINITY ? INFINITY : l * kLog2e; }

// The deterministic dQ order's semaphore read: acquire, so that the dQ rows the previous key
// block wrote before releasing the semaphore are visible to this CTA's reads.
__device__ __forceinline__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// fp32 dQ accumulation of two adjacent columns.
template <bool kVectorAtomics>
__device__ __forceinline__ void atomic_add2(float* dst, float x, float y) {
  if constexpr (kVectorAtomics) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(reinterpret_cast<float2*>(dst), make_float2(x, y));
#else
    atomicAdd(dst, x);  // not reached: only sm_90a libraries instantiate kVectorAtomics
    atomicAdd(dst + 1, y);
#endif
  } else {
    atomicAdd(dst, x);
    atomicAdd(dst + 1, y);
  }
}

// ---- the sink's gradient (BwdParams::sink_partial) --------------------------------------------
// This thread's share of sum_i p_sink,i sum_j P_ij dP_ij from one warp's keys x queries fragments
// of P^T and dP^T (fp32, dP^T before it becomes dS^T). Entry 4 t + 2 h + c is key row lane / 4 +
// 8 h and query column 8 t + 2 (lane % 4) + c: mma.sync m16n8's layout, and each warp's rows of a
// wgmma m64nN accumulator. p_sink_rows: the columns' p_sink = exp(sink - lse), 0 where P must be 0
// (computed once per row with the lse rows: per fragment entry it cost the d64 backward 18%).
template <int kQTiles>
__device__ __forceinline__ float sink_grad_share(const float* pt, const float* dpt, const float* p_sink_rows,
                                                 int lane) {
  float acc = 0.f;
#pragma unroll
  for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const float p_sink = p_sink_rows[8 * t + 2 * (lane % 4) + c];
      acc += p_sink * (pt[4 * t + c] * dpt[4 * t + c] + pt[4 * t + 2 + c] * dpt[4 * t + 2 + c]);
    }
  }
  return acc;
}

// A warp's shares (every lane calls it) into its slot of sink_partial for the key block from key
// n0, batch entry b, query head h: one plain store, in a fixed order, so deterministic.
__device__ __forceinline__ void store_sink_share(const BwdParams& p, float share, int n0, int b, int h, int slot,
                                                 int lane) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) share += __shfl_xor_sync(0xffffffffu, share, off);
  if (lane == 0) {
    p.sink_partial[((static_cast<int64_t>(n0 / kSinkPartialKeys) * p.batch + b) * p.heads + h) * kSinkPartialSlots +
                   slot] = share;
  }
}

}  // namespace bwd
}  // namespace flashcore
