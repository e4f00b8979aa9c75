// 2^x on the FMA and integer pipes: a polynomial stand-in for ex2.approx.ftz.f32 (MUFU.EX2),
// used for part of the scores where the multi-function unit (MUFU, the XU pipe) is the
// bottleneck. Plain C++ when not compiled by nvcc, so the host tests the very same function
// (tests/cpu_exp2_poly_test.cc, every float of the softmax's domain).
//
// Why: with softcap the Hopper forward needs two MUFU operations per score, tanh.approx
// (kernels/common/mask.cuh) and ex2.approx (kernels/common/online_softmax.cuh), and the XU pipe
// issues 16 of them per clock per SM. At head dim 128 one consumer warpgroup's 64 x 128 tile is
// 8192 scores, 2 x 8192 / 16 = 1024 clocks of MUFU alone, as long as the other warpgroup's GEMMs
// (QK^T and PV, 64 x 128 x 128 each, ~1024 clocks at ~4096 dense FLOP/clock/SM), so the softmax
// no longer hides under them (without softcap: 512 clocks). Computing half of the exp2s here
// takes MUFU down to 768 clocks, for ~11 FMA/ALU-pipe instructions per exp2 moved (the FMA pipe
// issues 128 lanes per clock per SM, 8x the XU pipe). FlashAttention-4 describes the same idea
// on Blackwell; this is an independent implementation.
//
// Method: x is split as x = j + f, j = round(x), f in [-0.5, 0.5], without F2I/FRND (those run
// on the XU pipe too): adding 1.5 * 2^23 (+ 127, the exponent bias) rounds x to an integer in the
// float's low mantissa bits, and subtracting it back gives j exactly. 2^f is a degree-4
// polynomial with p(0) = 1 exactly (Horner, four FMAs; coefficients: a relative-error minimax
// fit on [-0.5, 0.5] under that constraint, rounded to float); 2^j is built in the exponent
// field by one integer shift of the rounded sum's bits, and multiplied in, so a NaN in p stays
// NaN. Degree 3 under the same constraint reaches only 4.3e-4 (2^-11.2), fp16's own rounding.
// sm_90a SASS per call: FSETP + FSEL (the clamp), 3 FADD, 4 FFMA, IMAD.SHL, FMUL -- 11 issue
// slots, no MUFU, no conversion.
//
// Error, measured on the host (tests/cpu_exp2_poly_test.cc: every float in [-130, 0], every 5th in
// (0, 127]): max relative error against exp2 in double 3.63e-6 (2^-18.07), at f = -0.4094; the
// test's bound is 2^-18. fp16 rounds P at 2^-11, bf16 at 2^-8.
// Special values, as ex2.approx.ftz.f32: -inf -> 0, x < -126 -> 0 (no subnormal results),
// +-0 -> 1 exactly, NaN -> NaN. Domain: x <= 127 (+inf and x >= 127.5 are wrong here; the
// softmax's arguments are <= 0 up to one rounding).
#pragma once

#include <cmath>
#include <cstdint>
#ifndef __CUDA_ARCH__
#include <cstring>
#endif

#if defined(__CUDACC__)
#define FLASHCORE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FLASHCORE_HOST_DEVICE inline
#endif

namespace flashcore {

// p(f) = 1 + f (c1 + f (c2 + f (c3 + f c4))) ~ 2^f on [-0.5, 0.5].
constexpr float kExp2PolyC1 = 0.693113625f;
constexpr float kExp2PolyC2 = 0.240207106f;
constexpr float kExp2PolyC3 = 0.0559768826f;
constexpr float kExp2PolyC4 = 0.00978291221f;

FLASHCORE_HOST_DEVICE uint32_t exp2_poly_float_bits(float x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

FLASHCORE_HOST_DEVICE float exp2_poly_bits_float(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

FLASHCORE_HOST_DEVICE float exp2_poly(float x) {
  // x < -126 (and -inf) -> -127, whose 2^j below is +0; a compare-select, not fmaxf, which would
  // turn NaN into -127.
  const float xc = x < -126.f ? -127.f : x;
  // 1.5 * 2^23 + 127: xc + this lies in [2^23, 2^24), where floats are the integers, so the sum
  // is rounded to the nearest integer and its mantissa field is 2^22 + 127 + j.
  constexpr float kShifter = 12582912.f + 127.f;
  const float t = xc + kShifter;
  const float j = t - kShifter;  // exact
  const float f = xc - j;        // exact, in [-0.5, 0.5]
  float q = kExp2PolyC4;
  q = fmaf(q, f, kExp2PolyC3);
  q = fmaf(q, f, kExp2PolyC2);
  q = fmaf(q, f, kExp2PolyC1);
  const float p = fmaf(q, f, 1.f);
  // The mantissa field's low 9 bits, (127 + j) mod 512, become the exponent field: 2^j for j in
  // [-126, 127], +0 for j = -127.
  const float two_j = exp2_poly_bits_float(exp2_poly_float_bits(t) << 23);
  return p * two_j;
}

}  // namespace flashcore
