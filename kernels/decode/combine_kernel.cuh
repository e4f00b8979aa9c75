// The split-KV combine of the KV-cache kernels (decode_kernel.cuh): with num_splits > 1 every
// decode CTA leaves a float32 partial output and its log-sum-exp, and this kernel merges them.
// Included only by decode_kernel.cuh, after the traits header of its dtype.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/common/online_softmax.cuh"
#include "kernels/decode/decode_api.h"
#include "kernels/decode/programmatic_launch.cuh"

namespace flashcore {
namespace decode {

// Merges the splits of one output row per warp: O = sum_s w_s O_s / sum_s w_s with
// w_s = exp(lse_s - max lse); a split that saw no key has lse -inf and weight 0. Every lane loads
// the log-sum-exps and its columns of kUnroll splits at once and keeps a running max over such
// chunks (rescaling its sums when the max moves), so a call of up to kUnroll splits waits for one
// round trip to memory after the split grid ends. Before session 31 the max came first from a loop
// over the splits (one round trip), then the splits in batches of 8 (4 at head dim 256; one round
// trip each): 3 round trips at 16 splits (B1 Hq32 Hk8 k131072), 5 at 256. (Earlier still, one
// split per iteration made the combine a chain of 16 dependent round trips: 10.3 us -> 6.9 us at
// 4 a batch, ncu on an H100, docs/results/2026-11-23-h100-decode4.md.)
template <Arch kArch, class Traits, int kHeadDim>
__global__ void __launch_bounds__(128) decode_combine_kernel(const DecodeParams p) {
  using Element = typename Traits::Element;
  constexpr int kPerLane = kHeadDim / 32;
  // Splits whose loads are in flight together: kUnroll x (kPerLane + 1) registers, 80 at head dim
  // 128, 144 at 256 (ptxas: 124 / 186 registers a thread, no spills). The heuristic splits only
  // calls whose query blocks leave most SMs idle, so their combine grids are small; a caller's
  // num_splits on a large batch gets a larger grid at 2-3 CTAs an SM at 256.
  constexpr int kUnroll = 16;
  static_assert(kPerLane == 2 || kPerLane == 4 || kPerLane == 8, "decode combine: head_dim 64, 128 or 256");
  // A lane's columns of one split's row: one float2 / float4, or two float4 at 256.
  struct Vec {
    typename std::conditional<kPerLane == 2, float2, float4>::type part[kPerLane <= 4 ? 1 : 2];
  };
  static_assert(sizeof(Vec) == kPerLane * sizeof(float), "a lane's columns, contiguous");
  wait_for_primary_grid();  // the split kernel has finished (see there)
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * 4 + threadIdx.x / 32;  // (b, head, t)
  const int64_t rows = static_cast<int64_t>(p.batch) * p.heads * p.seqlen_q;
  if (row >= rows) return;
  const int t = static_cast<int>(row % p.seqlen_q);
  const int head = static_cast<int>((row / p.seqlen_q) % p.heads);
  const int b = static_cast<int>(row / (static_cast<int64_t>(p.seqlen_q) * p.heads));
  int row0_q = 0;
  if (p.cu_seqlens_q != nullptr) {
    row0_q = p.cu_seqlens_q[b];
    if (t >= p.cu_seqlens_q[b + 1] - row0_q) return;  // past this sequence's queries
  }
  const int count = p.num_splits;
  const bool active = lane * kPerLane < p.head_dim;  // this lane's columns are the call's
  float m = -INFINITY;  // the running max of the lses summed so far
  float sum = 0.f;
  float acc[kPerLane] = {};
  for (int s0 = 0; s0 < count; s0 += kUnroll) {
    float lse[kUnroll];
    Vec v[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int s = min(s0 + j, count - 1);  // past the last split: reload it, not summed below
      lse[j] = p.lse_accum[s * rows + row];
      // o_accum rows are kHeadDim wide; the split kernel wrote the call's head_dim columns.
      v[j] = active ? *reinterpret_cast<const Vec*>(p.o_accum + (s * rows + row) * kHeadDim + lane * kPerLane) : Vec{};
    }
    float m_new = m;
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      if (s0 + j < count) m_new = fmaxf(m_new, lse[j]);
    }
    // No split with a key yet: subtract 0, so that the weights of -inf lses are exactly 0.
    const float m_base = m_new == -INFINITY ? 0.f : m_new;
    const float rescale = expf(m - m_base);  // 0 while m is -inf: sum and acc are 0 then
    sum *= rescale;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) acc[i] *= rescale;
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      if (s0 + j < count) {
        const float w = expf(lse[j] - m_base);
        sum += w;
        const float* vf = reinterpret_cast<const float*>(&v[j]);
#pragma unroll
        for (int i = 0; i < kPerLane; ++i) acc[i] += w * vf[i];
      }
    }
    m = m_new;
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  auto* o = static_cast<Element*>(p.o) + b * p.o_batch_stride + (row0_q + t) * p.o_row_stride +
            head * p.o_head_stride + lane * kPerLane;
  if (active) {
#pragma unroll
    for (int i = 0; i < kPerLane; i += 2) {
      *reinterpret_cast<uint32_t*>(o + i) = Traits::pack2(acc[i] * inv, acc[i + 1] * inv);
    }
  }
  if (lane == 0 && p.lse != nullptr) {
    const int64_t idx = lse_row0(p.cu_seqlens_q != nullptr, p.total_q, p.seqlen_q, p.heads, b, head, row0_q) + t;
    p.lse[idx] = sum > 0.f ? m + logf(sum) : -INFINITY;
  }
}

}  // namespace decode
}  // namespace flashcore
