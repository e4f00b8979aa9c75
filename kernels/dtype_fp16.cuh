// FP16 element traits. FP16 libraries may be compiled with the BF16-suppressing macros; this
// header includes nothing of BF16.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"
#include "kernels/sm80/mma.cuh"

namespace flashcore {

struct Fp16Traits {
  using Element = __half;
  static constexpr DType kDType = DType::kFp16;

  __device__ __forceinline__ static uint32_t pack2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }

  __device__ __forceinline__ static float2 unpack2(uint32_t bits) {
    return __half22float2(*reinterpret_cast<const __half2*>(&bits));
  }

  __device__ __forceinline__ static void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4],
                                                     uint32_t b0, uint32_t b1) {
    mma_16x8x16_f32acc<kDType>(d, a, b0, b1);
  }
};

template <>
struct TraitsFor<DType::kFp16> {
  using type = Fp16Traits;
};

}  // namespace flashcore
