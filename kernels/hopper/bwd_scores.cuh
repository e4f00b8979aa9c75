// The sm90a backward's element-wise step between its GEMMs, shared by both consumer layouts
// (bwd_kernel.cuh, bwd_wide_kernel.cuh): S^T -> P^T (softcap, exp2 against the row's lse, the
// mask), then dP^T -> dS^T (D, softcap's derivative). Fragments are m64nN wgmma accumulators of
// kQTiles n8 groups: element 4t + 2h + e is key key0 + 8h (key0: this thread's first key) and
// query query0 + 8t + 2 (lane % 4) + e; the lse / D rows of those queries are the float pairs at
// 8t + 2 (lane % 4) of `lse_rows` / `dsum_rows` (shared memory, lse already in the log2 domain).
#pragma once

#include "kernels/common/mask.cuh"
#include "kernels/common/online_softmax.cuh"

namespace flashcore {
namespace hopper {

// S^T (raw scores) -> P^T in place. Keys past seqlen_k (zero-filled K: P would be exp2(-lse), not
// 0) and keys outside a row's window become 0 where the block needs the mask; query rows past
// seqlen_q have lse = +inf, so P = 0 there already.
template <int kQTiles, bool kMasked>
__device__ __forceinline__ void probs_from_scores(float (&s)[kQTiles * 4], const float* lse_rows, float scale_log2,
                                                  float softcap, float scale_over_softcap,
                                                  const AttentionMask<kMasked>& mask, bool needs_mask, int key0,
                                                  int query0, int lane) {
  if (softcap > 0.f) softcap_scores(s, scale_over_softcap);  // S^T becomes tanh(...)
#pragma unroll
  for (int t = 0; t < kQTiles; ++t) {
    const float2 l = *reinterpret_cast<const float2*>(&lse_rows[8 * t + 2 * (lane % 4)]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      s[4 * t + 2 * h] = exp2_approx(s[4 * t + 2 * h] * scale_log2 - l.x);
      s[4 * t + 2 * h + 1] = exp2_approx(s[4 * t + 2 * h + 1] * scale_log2 - l.y);
    }
  }
  if (needs_mask) {
#pragma unroll
    for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int key = key0 + 8 * h;
          const KeyRange keys = mask.keys_of_row(query0 + 8 * t + 2 * (lane % 4) + e);
          if (key < keys.lo || key >= keys.hi) s[4 * t + 2 * h + e] = 0.f;
        }
      }
    }
  }
}

// dP^T -> dS^T = P^T o (dP^T - D) in place, times softcap's derivative 1 - tanh^2 when softcap is
// on, tanh recovered from P = exp2(tanh * scale_log2 - lse): no registers held for it across the
// dP wait. P = 0 (masked, or underflowed) has dS = 0.
template <int kQTiles>
__device__ __forceinline__ void dscores_from_probs(float (&dp)[kQTiles * 4], const float (&prob)[kQTiles * 4],
                                                   const float* lse_rows, const float* dsum_rows, float scale_log2,
                                                   float softcap, int lane) {
#pragma unroll
  for (int t = 0; t < kQTiles; ++t) {
    const float2 d = *reinterpret_cast<const float2*>(&dsum_rows[8 * t + 2 * (lane % 4)]);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      dp[4 * t + 2 * h] = prob[4 * t + 2 * h] * (dp[4 * t + 2 * h] - d.x);
      dp[4 * t + 2 * h + 1] = prob[4 * t + 2 * h + 1] * (dp[4 * t + 2 * h + 1] - d.y);
    }
  }
  if (softcap > 0.f) {
    const float inv_scale_log2 = reciprocal_here(scale_log2);
#pragma unroll
    for (int t = 0; t < kQTiles; ++t) {
      const float2 l = *reinterpret_cast<const float2*>(&lse_rows[8 * t + 2 * (lane % 4)]);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float p = prob[4 * t + i];
        const float th = (__log2f(p) + (i % 2 == 0 ? l.x : l.y)) * inv_scale_log2;
        dp[4 * t + i] = p > 0.f ? dp[4 * t + i] * (1.f - th * th) : 0.f;
      }
    }
  }
}

}  // namespace hopper
}  // namespace flashcore
