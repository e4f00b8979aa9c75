// The end of a decode CTA (decode_kernel.cuh): the key warps of each query row merge their
// partial softmax states. Every warp leaves its row max (log2 units), row sum and unnormalised
// output in shared memory (the K / V ring's, free by then). Each thread then finishes some
// (row, column pair)s. With one split it writes O (and the lse) in the call's dtype; with several
// it writes the split's float32 partial output and log-sum-exp for decode_combine_kernel
// (combine_kernel.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/common/online_softmax.cuh"  // kLn2
#include "kernels/decode/decode_api.h"
#include "kernels/decode/decode_seq.cuh"
#include "kernels/flash_fwd_api.h"  // lse_row0

namespace flashcore {
namespace decode {

// The merge's shared memory: kKeyWarps x kBlockM rows of kHeadDim + 4 floats (the pad spreads a
// fragment's rows over banks), then the rows' maxima and sums. The kernel checks it fits its ring.
template <int kHeadDim>
constexpr int kMergeRowStride = kHeadDim + 4;  // floats
template <int kHeadDim, int kBlockM, int kKeyWarps>
constexpr int merge_smem_bytes() {
  return kKeyWarps * kBlockM * (kMergeRowStride<kHeadDim> + 2) * 4;
}

// acc_o / row_max / row_sum: this thread's m16 fragment rows lrow0 and lrow0 + 8 of warp column
// warp_n (the kernel's RowSoftmax and O accumulator, its sums not yet quad-reduced).
template <class Traits, int kHeadDim, int kBlockM, int kKeyWarps, int kThreads>
__device__ __forceinline__ void merge_key_warps_and_store(unsigned char* smem, const DecodeParams& p,
                                                          const DecodeSeq& seq, const float (&acc_o)[kHeadDim / 2],
                                                          const float (&row_max)[2], const float (&row_sum)[2], int m0,
                                                          int rows, int group_size, int kv_head, int b, int split,
                                                          int warp_n, int lrow0, int tig, int tid) {
  using Element = typename Traits::Element;
  constexpr int kDTiles = kHeadDim / 8;
  constexpr int kOStride = kMergeRowStride<kHeadDim>;
  float* sm_o = reinterpret_cast<float*>(smem);
  float* sm_max = sm_o + kKeyWarps * kBlockM * kOStride;
  float* sm_sum = sm_max + kKeyWarps * kBlockM;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int slot = warp_n * kBlockM + lrow0 + 8 * h;
    float sum = row_sum[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    if (tig == 0) {
      sm_max[slot] = row_max[h];
      sm_sum[slot] = sum;
    }
#pragma unroll
    for (int t = 0; t < kDTiles; ++t) {
      *reinterpret_cast<float2*>(sm_o + slot * kOStride + 8 * t + 2 * tig) =
          make_float2(acc_o[4 * t + 2 * h], acc_o[4 * t + 2 * h + 1]);
    }
  }
  __syncthreads();

  constexpr int kPairs = kHeadDim / 2;
  for (int e = tid; e < kBlockM * kPairs; e += kThreads) {
    const int lrow = e / kPairs;
    const int d = (e % kPairs) * 2;
    const int row = m0 + lrow;
    if (row >= rows || d >= p.head_dim) continue;  // columns past the call's head dim are not its
    float m = -INFINITY;
#pragma unroll
    for (int w = 0; w < kKeyWarps; ++w) m = fmaxf(m, sm_max[w * kBlockM + lrow]);
    const float m_base = m == -INFINITY ? 0.f : m;  // no key at all: every weight is 0
    float sum = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
    for (int w = 0; w < kKeyWarps; ++w) {
      const int slot = w * kBlockM + lrow;
      const float wgt = exp2f(sm_max[slot] - m_base);
      sum += wgt * sm_sum[slot];
      o0 += wgt * sm_o[slot * kOStride + d];
      o1 += wgt * sm_o[slot * kOStride + d + 1];
    }
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
    const float lse = sum > 0.f ? m * kLn2 + logf(sum) : -INFINITY;
    const int t = row / group_size;
    const int head = kv_head * group_size + row % group_size;
    if (p.num_splits == 1) {
      auto* o = static_cast<Element*>(p.o) + b * p.o_batch_stride + (seq.row0_q + t) * p.o_row_stride +
                head * p.o_head_stride;
      *reinterpret_cast<uint32_t*>(o + d) = Traits::pack2(o0 * inv, o1 * inv);
      if (d == 0 && p.lse != nullptr) {
        const int64_t idx =
            lse_row0(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, b, head, seq.row0_q) + t;
        p.lse[idx] = lse;
      }
    } else {
      const int64_t idx = ((static_cast<int64_t>(split) * p.batch + b) * p.heads + head) * p.seqlen_q + t;
      *reinterpret_cast<float2*>(p.o_accum + idx * kHeadDim + d) = make_float2(o0 * inv, o1 * inv);
      if (d == 0) p.lse_accum[idx] = lse;
    }
  }
}

}  // namespace decode
}  // namespace flashcore
