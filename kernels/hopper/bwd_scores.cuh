// The sm90a backward's element-wise step between its GEMMs, shared by both consumer layouts
// (bwd_kernel.cuh, bwd_wide_kernel.cuh): S^T -> P^T (softcap, exp2 against the row's lse, the
// mask), then dP^T -> dS^T (D, softcap's derivative). Fragments are m64nN wgmma accumulators of
// kQTiles n8 groups: element 4t + 2h + e is key key0 + 8h (key0: this thread's first key) and
// query query0 + 8t + 2 (lane % 4) + e; the lse / D rows of those queries are the float pairs at
// 8t + 2 (lane % 4) of `lse_rows` / `dsum_rows` (shared memory, lse already in the log2 domain).
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "kernels/common/mask.cuh"
#include "kernels/common/online_softmax.cuh"

namespace flashcore {
namespace hopper {

// Softcap's derivative needs tanh after the dP^T wait. Holding it (or 1 - tanh^2) beside fp32 P^T
// takes 16 / 32 more registers, which made ptxas spill in every variant (session 9), so the
// kernels with a run-time softcap recover it from P by a third MUFU op per score (lg2), on the
// path between the dP^T wait and the next GEMMs. kPackedSoftcap: the kernel variant for softcap >
// 0 (bwd_launch.cuh; not with the sink's gradient, which reads fp32 P^T, nor deterministic) holds
// instead, through the wait, in each score pair's two registers: P^T (element 2i: the 16-bit pair
// the dV GEMM takes anyway, exact) and W^T = P^T o (1 - tanh^2) (element 2i + 1, rounded to the
// 16-bit type), the same count as fp32 P^T. dS^T is W^T o (dP^T - D); P^T = 0 gives W^T = 0, so
// dS^T = 0 where P is masked or underflows, unless dP^T - D is not finite: then NaN, as without
// softcap (the lg2 path writes 0 wherever P = 0). A variant, not a branch: as a run-time branch beside
// the plain path (every head dim) it made the plain rows 1-13% slower at head dims 64 and 128
// (code layout; docs/results/2026-11-28-h200-session32.md).
template <class Traits>
__device__ __forceinline__ float pack_pair_as_float(float lo, float hi) {
  return __uint_as_float(Traits::pack2(lo, hi));
}
template <class Traits>
__device__ __forceinline__ float2 unpack_pair_from_float(float packed) {
  return Traits::unpack2(__float_as_uint(packed));
}

// Where the packed-softcap path applies the mask, per kernel (ptxas allocates each differently):
//   kInExp2Loop: two copies of the exp2 loop, one testing the mask (blocks without one pay nothing);
//   kOnTanh: a pass setting hidden tanh values to -1e15 (P = 0, W = 0), then one exp2 loop;
//   kOnPackedPairs: one exp2 loop, then a pass clearing hidden 16-bit halves of the P^T / W^T pairs;
//   kOnTanhInExp2Loop: two copies of the exp2 loop, the masked one setting a hidden tanh value to
//     -1e15 before its exp2 (P = 0, W = -0) instead of zeroing P after it.
// Measured on the H200 (kernel-only A/Bs, bf16 + fp16, docs/results/2026-11-28-h200-session33.md
// and -session34.md): d128 causal kOnTanh +3..+6% (9 STL -> 0); d64 full kOnPackedPairs
// +1.2..+2.5%; d128 full kOnPackedPairs -0.4..+1.2% (208 fewer instructions); d64 causal
// kOnTanhInExp2Loop +7.0..+10.3% (6 / 9 STL bf16 / fp16 -> 0); d96 kOnPackedPairs -3.1..+0.6% and
// d128 full kOnTanh -1..-3%, so not those; d64 causal spilled more with kOnTanh (8 STL, session 32)
// or kOnPackedPairs (23).
// For the split-keys kernel (bwd_kernel.cuh: head dims 64, 96, 128; `causal` is its masked
// instantiation, causal or windowed, measured on causal rows); the shared-keys kernel (192, 256:
// softcap costs 0-7% there) keeps kInExp2Loop.
enum class PackedMask { kInExp2Loop, kOnTanhInExp2Loop, kOnTanh, kOnPackedPairs };
constexpr PackedMask packed_mask_for(int head_dim, bool causal) {
  if (causal) {
    return head_dim == 128 ? PackedMask::kOnTanh
           : head_dim == 64 ? PackedMask::kOnTanhInExp2Loop
                            : PackedMask::kInExp2Loop;
  }
  return head_dim == 96 ? PackedMask::kInExp2Loop : PackedMask::kOnPackedPairs;
}

// S^T (raw scores) -> P^T in place (kPackedSoftcap: P^T / W^T pairs). Keys past seqlen_k
// (zero-filled K: P would be exp2(-lse), not 0) and keys outside a row's window become 0 where the
// block needs the mask; query rows past seqlen_q have lse = +inf, so P = 0 there already.
// kPackedMask (packed softcap only): how the mask is applied (packed_mask_for).
template <class Traits, int kQTiles, bool kPackedSoftcap, PackedMask kPackedMask, bool kMasked>
__device__ __forceinline__ void probs_from_scores(float (&s)[kQTiles * 4], const float* lse_rows, float scale_log2,
                                                  float softcap, float scale_over_softcap,
                                                  const AttentionMask<kMasked>& mask, bool needs_mask, int key0,
                                                  int query0, int lane) {
  // Whether element 4t + 2h + e of `s` (key key0 + 8h, query query0 + 8t + 2 (lane % 4) + e) is
  // a key its query row sees: the one mask test of every placement below. AttentionMask::keys_of_row
  // in the fragment's terms: with rel = key - (query0 + 2 (lane % 4)), key - query = rel - (8t + e),
  // so a window bound is one compare of the element's 8t + e, an immediate, against a threshold
  // per h (row i's diagonal key is i + seqlen_k - seqlen_q; no bound: a threshold every element
  // passes). Per row, keys_of_row's min / max took ~5x the instructions (causal d64: ncu counted
  // ~1,800 more warp instructions a CTA than FlashAttention-4's kernel; session 47).
  int key_hi_from[2], key_lo_to[2];  // sees: key_hi_from[h] <= 8t + e <= key_lo_to[h]
  bool key_in_seq[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = key0 + 8 * h;
    const int rel_off = key - (query0 + 2 * (lane % 4)) - (mask.seqlen_k - mask.seqlen_q);
    key_in_seq[h] = key < mask.seqlen_k;
    key_hi_from[h] = kMasked && mask.window_right >= 0 ? rel_off - mask.window_right : INT_MIN;
    key_lo_to[h] = kMasked && mask.window_left >= 0 ? rel_off + mask.window_left : INT_MAX;
  }
  auto row_sees_key = [&](int t, int h, int e) {
    return key_in_seq[h] && key_hi_from[h] <= 8 * t + e && 8 * t + e <= key_lo_to[h];
  };
  // The mask as a pass of its own: elements of `s` whose key their query row does not see become
  // `hidden` (0 for P^T; -1e15 for tanh, kOnTanh).
  auto hide_masked = [&](float hidden) {
#pragma unroll
    for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          if (!row_sees_key(t, h, e)) s[4 * t + 2 * h + e] = hidden;
        }
      }
    }
  };
  if constexpr (kPackedSoftcap) {
    // tanh in place first: a score's tanh and P are then never both held beside the block's other
    // scores (with tanh and exp2 interleaved, ptxas batched the MUFU ops and spilled).
    softcap_scores(s, scale_over_softcap);
    auto exp2_pack = [&](auto masked) {
#pragma unroll
      for (int t = 0; t < kQTiles; ++t) {
        const float2 l = *reinterpret_cast<const float2*>(&lse_rows[8 * t + 2 * (lane % 4)]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float prob[2], weighted[2];
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float th = s[4 * t + 2 * h + e];
            if constexpr (decltype(masked)::value && kPackedMask == PackedMask::kOnTanhInExp2Loop) {
              // The mask on tanh inside the masked copy: -1e15 gives P = 0 and W = -0 (as kOnTanh).
              if (!row_sees_key(t, h, e)) th = -1e15f;
            }
            prob[e] = exp2_approx(th * scale_log2 - (e == 0 ? l.x : l.y));
            if constexpr (decltype(masked)::value && kPackedMask != PackedMask::kOnTanhInExp2Loop) {
              if (!row_sees_key(t, h, e)) prob[e] = 0.f;
            }
            weighted[e] = prob[e] * fmaf(-th, th, 1.f);
          }
          s[4 * t + 2 * h] = pack_pair_as_float<Traits>(prob[0], prob[1]);
          s[4 * t + 2 * h + 1] = pack_pair_as_float<Traits>(weighted[0], weighted[1]);
        }
      }
    };
    if constexpr (kPackedMask == PackedMask::kOnTanh) {
      // The mask in a pass of its own, as on the plain path, on tanh: a hidden score's tanh becomes
      // -1e15, whose P is exp2(-1e15 * scale_log2 - lse) = 0 and whose W = 0 * (1 - 1e30) = 0
      // (finite, unlike -inf's 0 * inf). Then one exp2 loop for every block.
      if (needs_mask) hide_masked(-1e15f);
      exp2_pack(std::false_type{});
    } else if constexpr (kPackedMask == PackedMask::kOnPackedPairs) {
      // One exp2 loop for every block, then the mask on the packed pairs: a hidden key's 16-bit
      // halves of P^T and W^T become +0 whatever exp2 gave (a zero-filled key past seqlen_k has
      // P = exp2(-lse), which can overflow fp16): an AND on both registers of the pair.
      exp2_pack(std::false_type{});
      if (needs_mask) {
#pragma unroll
        for (int t = 0; t < kQTiles; ++t) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            uint32_t keep = 0;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              if (row_sees_key(t, h, e)) keep |= e == 0 ? 0x0000ffffu : 0xffff0000u;
            }
            s[4 * t + 2 * h] = __uint_as_float(__float_as_uint(s[4 * t + 2 * h]) & keep);
            s[4 * t + 2 * h + 1] = __uint_as_float(__float_as_uint(s[4 * t + 2 * h + 1]) & keep);
          }
        }
      }
    } else {
      // Two copies of the exp2 loop, so that blocks without a mask pay nothing for it (one loop
      // testing the mask inside made causal softcap rows 2-10% slower than the lg2 path).
      if (needs_mask) {
        exp2_pack(std::true_type{});
      } else {
        exp2_pack(std::false_type{});
      }
    }
  } else {
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
    if (needs_mask) hide_masked(0.f);
  }
}

// dP^T -> dS^T = P^T o (dP^T - D) in place, times softcap's derivative 1 - tanh^2 when softcap is
// on. kPackedSoftcap: dS^T from W^T, and `prob` back to fp32 P^T (the 16-bit values, so that the
// caller's packing gives the same bits). Otherwise tanh is recovered from P = exp2(tanh *
// scale_log2 - lse), and P = 0 (masked, or underflowed) has dS = 0 whatever dP^T is.
template <class Traits, int kQTiles, bool kPackedSoftcap>
__device__ __forceinline__ void dscores_from_probs(float (&dp)[kQTiles * 4], float (&prob)[kQTiles * 4],
                                                   const float* lse_rows, const float* dsum_rows, float scale_log2,
                                                   float softcap, int lane) {
  if constexpr (kPackedSoftcap) {
#pragma unroll
    for (int t = 0; t < kQTiles; ++t) {
      const float2 d = *reinterpret_cast<const float2*>(&dsum_rows[8 * t + 2 * (lane % 4)]);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float2 pp = unpack_pair_from_float<Traits>(prob[4 * t + 2 * h]);
        const float2 ww = unpack_pair_from_float<Traits>(prob[4 * t + 2 * h + 1]);
        dp[4 * t + 2 * h] = ww.x * (dp[4 * t + 2 * h] - d.x);
        dp[4 * t + 2 * h + 1] = ww.y * (dp[4 * t + 2 * h + 1] - d.y);
        prob[4 * t + 2 * h] = pp.x;
        prob[4 * t + 2 * h + 1] = pp.y;
      }
    }
  } else {
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
}

}  // namespace hopper
}  // namespace flashcore
