// flashcore::exp2_poly (kernels/common/exp2_poly.h), the polynomial 2^x that the Hopper forward's
// softcap path uses for half of its exp2s, checked on the host: the header is the one the kernels
// compile (plain C++ outside nvcc; on the GPU the same float operations: FADD/FFMA/FMUL round to
// nearest even, as here, and the shift is an integer shift).
//
//   - every float in [-130, 0] (-0 included, ~1.12e9 values): x < -126 gives +0 exactly, as
//     ex2.approx.ftz.f32 (whose result would be subnormal); elsewhere the relative error against
//     exp2 in double is <= kBound;
//   - x in (0, 127] (the function's stated domain; the softmax sees x <= 0 up to one rounding):
//     every 5th float, same bound;
//   - -inf -> +0, +0 and -0 -> 1 exactly, every integer k in [-126, 127] -> 2^k exactly, every NaN
//     bit pattern (both signs) -> NaN.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "kernels/common/exp2_poly.h"

namespace {

using flashcore::exp2_poly;
using flashcore::exp2_poly_bits_float;
using flashcore::exp2_poly_float_bits;

// The header states 3.63e-6 (2^-18.07) measured; fp16 rounds P at 2^-11.
const double kBound = std::ldexp(1.0, -18);

int failures = 0;

void fail(const char* what, float x, float y) {
  if (++failures <= 20) std::printf("FAIL %s: x = %.9g (0x%08x) -> %.9g (0x%08x)\n", what, x, exp2_poly_float_bits(x), y, exp2_poly_float_bits(y));
}

struct Range {
  const char* name;
  double worst = 0.0;
  float worst_x = 0.f;
  uint64_t values = 0;
  uint64_t flushed = 0;
};

// Float bit patterns lo, lo + stride, ..., up to hi (all of one sign).
void check_bits(Range& r, uint32_t lo, uint32_t hi, uint32_t stride) {
  for (uint64_t b = lo; b <= hi; b += stride) {
    const float x = exp2_poly_bits_float(static_cast<uint32_t>(b));
    const float y = exp2_poly(x);
    ++r.values;
    if (x < -126.f) {
      ++r.flushed;
      if (exp2_poly_float_bits(y) != 0u) fail("x < -126 must give +0", x, y);
      continue;
    }
    const double ref = std::exp2(static_cast<double>(x));
    const double err = std::fabs(static_cast<double>(y) - ref) / ref;
    if (!(err <= kBound)) fail("relative error above the bound", x, y);  // NaN fails too
    if (err > r.worst) {
      r.worst = err;
      r.worst_x = x;
    }
  }
  std::printf("%-22s %11llu values (%llu flushed), max relative error %.4g (2^%.2f) at x = %.9g\n", r.name,
              static_cast<unsigned long long>(r.values), static_cast<unsigned long long>(r.flushed), r.worst,
              r.worst > 0 ? std::log2(r.worst) : -INFINITY, r.worst_x);
}

void check_special_values() {
  auto expect_bits = [](const char* what, float x, uint32_t want) {
    const float y = exp2_poly(x);
    if (exp2_poly_float_bits(y) != want) fail(what, x, y);
  };
  expect_bits("-inf -> +0", -INFINITY, 0u);
  expect_bits("+0 -> 1", 0.f, 0x3f800000u);
  expect_bits("-0 -> 1", -0.f, 0x3f800000u);
  expect_bits("-126 -> 2^-126", -126.f, 0x00800000u);
  expect_bits("-126.25 -> +0", -126.25f, 0u);
  expect_bits("-1e30 -> +0", -1e30f, 0u);
  expect_bits("-FLT_MAX -> +0", -3.40282347e38f, 0u);
  for (int k = -126; k <= 127; ++k) {
    const float x = static_cast<float>(k);
    const float y = exp2_poly(x);
    if (y != std::ldexp(1.f, k)) fail("integer k -> 2^k exactly", x, y);
  }
  // Every NaN: exponent all ones, mantissa non-zero, either sign (quiet and signalling).
  uint64_t nans = 0;
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t m = 1; m < (1u << 23); ++m) {
      const float x = exp2_poly_bits_float((sign << 31) | 0x7f800000u | m);
      const float y = exp2_poly(x);
      ++nans;
      if (!std::isnan(y)) fail("NaN -> NaN", x, y);
    }
  }
  std::printf("special values: -inf, +-0, -126, below -126, 254 integers, %llu NaN patterns\n",
              static_cast<unsigned long long>(nans));
}

}  // namespace

int main() {
  std::printf("bound: relative error <= 2^-18 = %.4g\n", kBound);
  check_special_values();
  Range neg{"[-130, 0], every float"};
  check_bits(neg, 0x80000000u, exp2_poly_float_bits(-130.f), 1);
  Range pos{"(0, 127], every 5th"};
  check_bits(pos, 1u, exp2_poly_float_bits(127.f), 5);
  if (failures > 0) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
