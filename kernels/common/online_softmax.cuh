// Online softmax and masking over one key block of scores, for any mainloop whose score
// accumulator uses the m16n8 fragment layout: mma.sync m16n8k16 (sm80/sm89) and wgmma m64nNk16
// (sm90a) both give a thread two rows, r and r + 8, and in each n8 column group the columns
// c = 8*t + 2*(lane % 4) + {0, 1}. Flat index: acc[4*t + 2*h + e] is (row r + 8h, column c + e).
//
// Scores are kept in log2 units (scaled by softmax_scale * log2(e)) so that exp2 gives the
// exponentials; the log-sum-exp written out is converted back to natural log.
#pragma once

#include <cmath>

#include "kernels/common/mask.cuh"

namespace flashcore {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// 2^x on the special-function unit, flushing subnormal results to zero: probabilities below
// 2^-126 of the row max contribute nothing at fp16/bf16 output precision. (exp2f would add a
// range fix-up around the same MUFU.EX2 instruction.)
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 2^x on the FMA and integer pipes instead of the special-function unit (MUFU), for a share of a
// softmax step's exponentials where the step's MUFU stream is what bounds it (FlashAttention-4
// moves part of its exp2s this way): a MUFU op holds its SMSP's XU pipe 8 clocks a warp, this
// takes eight or nine instructions that issue between the MUFU ops.
// 2^x = 2^floor(x) * p(x - floor(x)): floor from a round-down add of 1.5 * 2^23 (the sum's low
// mantissa bits hold it), p a degree-3 polynomial with p(0) = 1 fitted for the least relative
// error on [0, 1) (2^-13.5: under bf16 P's rounding, 2^-9, not fp16's; the fit:
// docs/results/2026-11-30-h200-session52/scripts/fit_exp2_poly.py), 2^floor(x) built in the
// exponent field. NaN stays NaN (p is NaN). kClamp: x may lie below -126 (-inf for a
// hidden column): clamped at -127 (max.NaN, which keeps a NaN), where the exponent field becomes
// 0, so the result is exactly 0 as exp2_approx's flush gives; without it x must be >= -126.
template <bool kClamp>
__device__ __forceinline__ float exp2_poly(float x) {
  constexpr float kRoundMagic = 12582912.f;
  if constexpr (kClamp) asm("max.NaN.f32 %0, %0, 0fC2FE0000;" : "+f"(x));  // -127
  const float t = __fadd_rd(x, kRoundMagic);
  const float f = x - (t - kRoundMagic);  // in [0, 1)
  const float p = fmaf(fmaf(fmaf(0.07706724107265472f, f, 0.22764497995376587f), f, 0.6951166391372681f), f, 1.f);
  // t's bits are 0x4B400000 + floor(x); their low 9 bits shifted into the exponent field (mod
  // 2^32) give floor(x) + 127 for floor(x) in [-127, 128].
  const float two_to_floor = __uint_as_float(__float_as_uint(t) * (1u << 23) + (127u << 23));
  return p * two_to_floor;
}

// What step() applies to a block's scores between finding their extreme and the exp2s: nothing,
// or softcap's tanh (of scores the caller has already multiplied by softmax_scale / softcap). For a
// non-decreasing transform the transformed block's extreme is the transform of the raw extreme, so
// the max chain runs on the raw scores beside the transform's MUFU stream instead of after it, and
// one more MUFU per row half gives the extreme. (PTX does not promise that tanh.approx never
// decreases; where it would, the max is low by its error, about 2^-11 of the softcap, and P above 1
// by as little: harmless, as kMaxSlack's P up to 2^8.) Only on blocks that need no mask: a masked
// block transforms its scores first, because a hidden column must stay apart from a score of -inf,
// which tanh maps to -1.
struct NoScoreTransform {
  static constexpr bool kActive = false;
  __device__ __forceinline__ float operator()(float x) const { return x; }
};
struct TanhScoreTransform {
  static constexpr bool kActive = true;
  __device__ __forceinline__ float operator()(float x) const { return tanh_approx(x); }
};

// kNTiles: n8 column groups per key block. kMaxSlack (log2 units): how far a block's max may
// rise above a row's running max before the running max moves to it. While it does not move, the
// block's alpha is exactly 1 and rescale_rows_if_needed skips the accumulator's multiplies (one
// FMUL per score at d128). The cost is P up to 2^kMaxSlack instead of 1, which fp32 sums and
// fp16/bf16 P hold with the same relative precision. 0: the exact running max.
// kHalvesTogether: the step's order. false: each row half in turn, its extreme one dependent chain
// of 2 x kNTiles compares, then its exp2s. true: both halves' extremes first, each over four
// partial chains, then both halves' exp2s interleaved (FlashAttention-4's SASS has this shape; in
// ncu of our d64 forward the chain's dependent waits were the largest stall gap to it). On an H100
// (sm90a forward, kernel-only A/B, alternating processes, about +-3% per row of noise:
// docs/results/2026-11-25-h100-session22.md) true measured bf16 d64 -0.7..+6.0%, d96 -0.3..+4.7%,
// d256 +2.7..+5.3%; fp16 d64 +0.2..+4.9%, d256 +1.2..+7.3%.
template <int kNTiles, int kMaxSlack = 0, bool kHalvesTogether = false>
struct OnlineSoftmax {
  float row_max[2];  // running max, log2 units; -inf while a row has seen no key
  float row_sum[2];  // running sum of this thread's columns (quad-reduced in finish())

  // Whether n8 column group t takes exp2_poly (a compile-time answer once the loops unroll).
  template <int kPolyEvery>
  static __device__ __forceinline__ bool takes_poly(int t) {
    if constexpr (kPolyEvery > 0) return t % kPolyEvery == kPolyEvery - 1;
    return false;
  }

  __device__ __forceinline__ OnlineSoftmax() {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.f;
  }

  // Turns the raw scores `s` (Q K^T; with a transform, already multiplied by softmax_scale /
  // softcap) of one key block (first column `col0`) into unnormalised probabilities P in place and
  // returns in `alpha` the factor each row's output accumulator must be multiplied by. With kMask,
  // columns outside keys[h] (the row's KeyRange) get P = 0.
  //
  // Per element this costs one compare (max), one FFMA (scale and subtract the max together) and
  // one MUFU.EX2 (a transform adds its own op, tanh: one more MUFU, and one per row half): the row
  // extreme is taken over the raw scores, so it is the max for a non-negative scale and the min
  // for a negative one (the branch is uniform per kernel).
  // kNonNegativeScale: the caller knows scale_log2 >= 0 (a mainloop copy for such calls), so the
  // extreme is the max with no run-time test of the scale's sign.
  template <bool kMask, class Transform = NoScoreTransform, bool kNonNegativeScale = false>
  __device__ __forceinline__ void step(float (&s)[kNTiles * 4], float scale_log2, int col0,
                                       const KeyRange (&keys)[2], float (&alpha)[2], Transform transform = {}) {
    static_assert(!(kMask && Transform::kActive), "a masked block transforms its scores before step()");
    if constexpr (kMask) {
      // Masked columns first become a score the row's extreme ignores and exp2 turns into 0 (-inf,
      // or +inf under a negative scale), so the rest is the unmasked step. Testing each column's
      // visibility where it is used (in the extreme, then again for P) kept 2 x kNTiles * 2
      // predicates alive across the two loops: ptxas parked them as register bits (two LOP3 per
      // column) and the masked step compiled to 1.8x the unmasked one's instructions.
      const int base = col0 + 2 * (threadIdx.x % 4);
      const float hide = kNonNegativeScale || scale_log2 >= 0.f ? -INFINITY : INFINITY;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int lo = keys[h].lo - base, hi = keys[h].hi - base;  // visible: lo <= 8t + e < hi
#pragma unroll
        for (int t = 0; t < kNTiles; ++t)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int c = 8 * t + e;
            float& x = s[4 * t + 2 * h + e];
            x = c >= lo && c < hi ? x : hide;
          }
      }
      // A zero scale would turn a hidden score into 0 * inf = NaN below: any scale small enough
      // that every finite score times it rounds away next to the max gives the same P.
      if (scale_log2 == 0.f) scale_log2 = 1e-30f;
    }
    auto max_of = [](float a, float b) { return fmaxf(a, b); };
    auto min_of = [](float a, float b) { return fminf(a, b); };
    // The row's new running max from its block extreme `ext` (raw units); returns what the
    // exponent subtracts.
    auto advance_max = [&](int h, float ext) {
      // No visible column in this block: the block's max is -inf (also for a zero scale).
      const float mx = isinf(ext) ? -INFINITY : ext * scale_log2;
      // (mx > -inf + slack holds for any finite mx; a NaN mx leaves the max where it was.)
      const float m_new = kMaxSlack == 0 ? fmaxf(row_max[h], mx) : mx > row_max[h] + kMaxSlack ? mx : row_max[h];
      // A row with no visible key so far keeps max -inf; subtract 0 instead so that exp2 gives
      // 0 rather than NaN (-inf - -inf).
      const float m_base = m_new == -INFINITY ? 0.f : m_new;
      alpha[h] = exp2_approx(row_max[h] - m_base);
      row_max[h] = m_new;
      return m_base;
    };
    // A score -> its unnormalised probability 2^(score * scale - m_base), in place; returns it.
    auto exp_in_place = [&](float& x, float m_base) {
      x = exp2_approx(fmaf(x, scale_log2, -m_base));
      return x;
    };
    // The block's extreme in transformed units. A transform runs on blocks without a mask only,
    // so -inf here means every score of the half is -inf or NaN: if one is -inf, tanh(-inf) = -1
    // is the transformed scores' max, as the transform-first order found; if all are NaN the max
    // moves where that order left it, which is harmless: the half's sum is NaN either way.
    auto transformed_extreme = [&](float ext) {
      if constexpr (Transform::kActive) return transform(ext);
      return ext;
    };
    if constexpr (kHalvesTogether) {
      // Both halves' extremes over the quad, each over four partial chains (an all-NaN half gives
      // NaN, which leaves the max where it was), then both halves' exp2s interleaved.
      constexpr int kPerHalf = 2 * kNTiles;
      constexpr int kParts = kPerHalf < 4 ? kPerHalf : 4;
      auto quad_extremes = [&](float(&ext)[2], auto pick) {
        float part[2][kParts];
#pragma unroll
        for (int i = 0; i < kPerHalf; ++i)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            float& x = s[4 * (i / 2) + 2 * h + i % 2];
            part[h][i % kParts] = i < kParts ? x : pick(part[h][i % kParts], x);
            if constexpr (Transform::kActive) x = transform(x);
          }
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int w = kParts / 2; w > 0; w /= 2)
#pragma unroll
            for (int i = 0; i < w; ++i) part[h][i] = pick(part[h][i], part[h][i + w]);
          ext[h] = part[h][0];
        }
#pragma unroll
        for (int lane_mask = 1; lane_mask <= 2; lane_mask *= 2)
#pragma unroll
          for (int h = 0; h < 2; ++h) ext[h] = pick(ext[h], __shfl_xor_sync(0xffffffffu, ext[h], lane_mask));
      };
      float ext[2], m_base[2], sum[2] = {0.f, 0.f};
      if (kNonNegativeScale || scale_log2 >= 0.f) {
        quad_extremes(ext, max_of);
      } else {
        quad_extremes(ext, min_of);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) m_base[h] = advance_max(h, transformed_extreme(ext[h]));
#pragma unroll
      for (int t = 0; t < kNTiles; ++t)
#pragma unroll
        for (int e = 0; e < 2; ++e)
#pragma unroll
          for (int h = 0; h < 2; ++h) sum[h] += exp_in_place(s[4 * t + 2 * h + e], m_base[h]);
#pragma unroll
      for (int h = 0; h < 2; ++h) row_sum[h] = row_sum[h] * alpha[h] + sum[h];
    } else {
      // Each half in turn: its extreme over the quad, one chain, then its exp2s.
      auto quad_extreme = [&](int h, float init, auto pick) {
        float ext = init;
#pragma unroll
        for (int t = 0; t < kNTiles; ++t)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = s[4 * t + 2 * h + e];
            ext = pick(ext, x);
            if constexpr (Transform::kActive) x = transform(x);
          }
        ext = pick(ext, __shfl_xor_sync(0xffffffffu, ext, 1));
        return pick(ext, __shfl_xor_sync(0xffffffffu, ext, 2));
      };
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float ext = kNonNegativeScale || scale_log2 >= 0.f ? quad_extreme(h, -INFINITY, max_of)
                                                                 : quad_extreme(h, INFINITY, min_of);
        const float m_base = advance_max(h, transformed_extreme(ext));
        float sum = 0.f;
#pragma unroll
        for (int t = 0; t < kNTiles; ++t)
#pragma unroll
          for (int e = 0; e < 2; ++e) sum += exp_in_place(s[4 * t + 2 * h + e], m_base);
        row_sum[h] = row_sum[h] * alpha[h] + sum;
      }
    }
  }

  // Softcap's scores are bounded: softcap * tanh(.) lies in [-softcap, softcap], so with the
  // softmax's log2 scale softcap * log2(e) = scale_log2 every exponent lies within 2 * scale_log2
  // below scale_log2. Subtracting a fixed `m_fixed` near that bound instead of the row's running
  // max (softmax is shift-invariant) needs no max at all: no compare chain and quad shuffles before
  // the exp2s, no alpha, no rescale of O. The caller picks m_fixed so that P = 2^(t * scale_log2 -
  // m_fixed) stays within [2^-120, 2^32] for every t in [-1, 1] (bounded_softcap_max below),
  // which fp32 sums and bf16 P hold (not fp16 P: its exponent range is 2^-24..2^15). `s`: raw
  // scores already multiplied by softmax_scale / softcap; tanh is taken here. With kMask, columns
  // outside keys[h] get P = 0 (hidden after the tanh, which maps -inf to -1). kPolyEvery (0:
  // none): every kPolyEvery-th n8 column group takes exp2_poly instead of the MUFU's exp2 (tanh and
  // exp2 make this step two MUFU ops a score); unmasked, every exponent is >= -120, so unclamped.
  // The row sums are not taken here: the caller adds P as its bf16 P V GEMM takes it, summed on the
  // tensor cores (the sm90a forward's convert_p, through add_quad_held_row_sums). With the running
  // max a row's largest P is exactly 1; with a fixed subtrahend it is not, and fp32 sums of the
  // unrounded P made a row that sees one key give out = v (1 + ~2^-9), whose backward then finds
  // D = dO . out off dP = dO . v:
  // dq 10-20x the same math's error (the fuzzer's bf16 softcap configurations with one-key
  // sequences, session 54).
  template <bool kMask, int kPolyEvery = 0>
  __device__ __forceinline__ void step_bounded(float (&s)[kNTiles * 4], float scale_log2, float m_fixed, int col0,
                                               const KeyRange (&keys)[2], float (&alpha)[2]) {
    const int base = col0 + 2 * (threadIdx.x % 4);
#pragma unroll
    for (int t = 0; t < kNTiles; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * t + 2 * h + e];
          float tx = tanh_approx(x);
          if constexpr (kMask) {
            const int c = 8 * t + e;
            tx = c >= keys[h].lo - base && c < keys[h].hi - base ? tx : -INFINITY;
          }
          const float y = fmaf(tx, scale_log2, -m_fixed);
          x = takes_poly<kPolyEvery>(t) ? exp2_poly<kMask>(y) : exp2_approx(y);
        }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // What finish() and the lse count from -- once the row sees a key of a block: a row that has
      // not keeps -inf, as with the running max, so that a tile whose blocks hide all of a row's
      // keys and one that skips those blocks give the same lse (with a sink: the sink's alone).
      // Decided from the row's key range, the same in each thread of its quad (finish() reduces
      // the sums over the quad but takes each thread's own max).
      const bool sees_keys =
          !kMask || (keys[h].lo < keys[h].hi && keys[h].lo < col0 + 8 * kNTiles && keys[h].hi > col0);
      row_max[h] = sees_keys ? m_fixed : row_max[h];
      alpha[h] = 1.f;
    }
  }

  // Adds row sums that every thread of a quad holds whole (r0: row r, r1: row r + 8), as an mma's
  // product against ones gives them (step_bounded's callers): a quarter in each thread, which
  // finish()'s quad reduction adds back exactly (power-of-two scaling; four equal values).
  __device__ __forceinline__ void add_quad_held_row_sums(float r0, float r1) {
    row_sum[0] = fmaf(r0, 0.25f, row_sum[0]);
    row_sum[1] = fmaf(r1, 0.25f, row_sum[1]);
  }

  // Row sums reduced over the quad; inv[h] is what the output accumulator is multiplied by (1/sum;
  // 0 for a row that saw no key) and lse[h] the natural-log log-sum-exp (-inf for such a row).
  // `sink_log2` (-inf: none) is an attention sink's logit in log2 units: it joins the
  // denominator only, so the row's max becomes max(row max, sink) and the accumulator, kept
  // relative to the row max, is rescaled by 2^(row max - new max). A row that saw no key but has
  // a sink gets output 0 and lse = the sink's.
  __device__ __forceinline__ void finish(float (&inv)[2], float (&lse)[2], float sink_log2 = -INFINITY) const {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float sum = row_sum[h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      float m = row_max[h];
      float rescale = 1.f;
      if (sink_log2 != -INFINITY) {
        const float m_new = fmaxf(m, sink_log2);
        rescale = sum > 0.f ? exp2f(m - m_new) : 0.f;
        sum = sum * rescale + exp2f(sink_log2 - m_new);
        m = m_new;
      }
      inv[h] = sum > 0.f ? rescale / sum : 0.f;
      lse[h] = sum > 0.f ? m * kLn2 + logf(sum) : -INFINITY;
    }
  }
};

// OnlineSoftmax::step_bounded's fixed subtrahend for a softcap's log2 scale, or NaN where the
// bound does not apply: with scale_log2 = softcap * log2(e), exponents t * scale_log2 - m lie in
// [-2 scale_log2 + offset, offset] for m = scale_log2 - offset; offset = max(0, 2 scale_log2 - 120)
// keeps the smallest P at 2^-120 or above (ex2.approx.ftz flushes below 2^-126), and the largest at
// 2^kBoundedSoftcapMaxPLog2 or below. bf16 P holds that (fp32's exponent range), and so do the
// fp32 sums and O accumulators unless |V| x keys passes ~2^95 (|V| beyond 2^64 at 2^31 keys; the
// running max allows 2^8 there). So softcaps up to (120 + 32) / (2 log2(e)) = 52.7: Grok's 30,
// Gemma 2's 50.
constexpr float kBoundedSoftcapMaxPLog2 = 32.f;
__host__ __device__ __forceinline__ float bounded_softcap_max(float scale_log2) {
  const float offset = fmaxf(0.f, 2.f * scale_log2 - 120.f);
  return offset <= kBoundedSoftcapMaxPLog2 ? scale_log2 - offset : NAN;
}

// Multiplies each row of an accumulator fragment (same layout, kTiles n8 groups) by alpha[h].
template <int kTiles>
__device__ __forceinline__ void scale_rows(float (&acc)[kTiles * 4], const float (&alpha)[2]) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t) {
    acc[4 * t + 0] *= alpha[0];
    acc[4 * t + 1] *= alpha[0];
    acc[4 * t + 2] *= alpha[1];
    acc[4 * t + 3] *= alpha[1];
  }
}

// scale_rows unless alpha is 1 for every row of the warp (the branch is warp-uniform): with a
// max slack most key blocks after the first leave every row's max where it was.
template <int kTiles>
__device__ __forceinline__ void rescale_rows_if_needed(float (&acc)[kTiles * 4], const float (&alpha)[2]) {
  if (__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) scale_rows<kTiles>(acc, alpha);
}

}  // namespace flashcore
