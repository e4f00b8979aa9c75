// Division of a non-negative int by a divisor that is fixed for a whole kernel or CTA, as one
// multiply-high, an add and a shift (the round-up method of Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994): q = (umulhi(n, mul) + n) >> shift
// for 0 <= n < 2^31 and 1 <= d < 2^31, mul and shift set once from d. The hardware has no integer
// divide: n / d by a run-time d compiles to I2F, MUFU.RCP, F2I and about 20 fix-up instructions.
// Host-compilable too, so tests/fast_divide_test.cc checks it against `/` without a GPU.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FLASHCORE_DIVIDE_FN __host__ __device__ __forceinline__
#else
#define FLASHCORE_DIVIDE_FN inline
#endif

namespace flashcore {

struct FastDivide {
  uint32_t mul = 0;
  uint32_t shift = 0;

  FLASHCORE_DIVIDE_FN explicit FastDivide(int d = 1) {
    while ((1u << shift) < static_cast<uint32_t>(d)) ++shift;  // ceil(log2 d): at most 31
    mul = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }

  // A divisor above every dividend (0 <= n < 2^31): every quotient is 0. Set without the 64-bit
  // divide of the constructor, which on the device is a called routine of ~100 instructions on a
  // CTA's critical path (the sm90a backward's CTAs divide their steps by their query blocks only
  // when a k/v head has several query heads: bwd_cta.cuh).
  FLASHCORE_DIVIDE_FN static FastDivide above_all() {
    FastDivide f;
    f.mul = 1;
    f.shift = 31;
    return f;
  }

  // n / d for 0 <= n < 2^31 (umulhi(n, mul) <= n, so the sum fits 32 bits).
  FLASHCORE_DIVIDE_FN int quotient(int n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t hi = __umulhi(static_cast<uint32_t>(n), mul);
#else
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(static_cast<uint32_t>(n)) * mul) >> 32);
#endif
    return static_cast<int>((hi + static_cast<uint32_t>(n)) >> shift);
  }
};

}  // namespace flashcore

#undef FLASHCORE_DIVIDE_FN
