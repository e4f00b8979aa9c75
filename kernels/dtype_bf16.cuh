// BF16 element traits. The CUDA_NO_BFLOAT16 family of macros silently removes BF16 conversions
// and operators from cuda_bf16.h; a BF16 translation unit built with any of them is wrong, so
// it must not build at all.
#pragma once

#if defined(CUDA_NO_BFLOAT16) || defined(__CUDA_NO_BFLOAT16__) ||               \
    defined(__CUDA_NO_BFLOAT16_CONVERSIONS__) ||                              \
    defined(__CUDA_NO_BFLOAT162_CONVERSIONS__) ||                             \
    defined(__CUDA_NO_BFLOAT16_OPERATORS__) || defined(__CUDA_NO_BFLOAT162_OPERATORS__)
#error "flashcore: a BF16-suppressing macro (CUDA_NO_BFLOAT16 family) reached a BF16 translation unit; such macros belong on fp16 libraries only"
#endif

#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"
#include "kernels/sm80/mma.cuh"

namespace flashcore {

struct Bf16Traits {
  using Element = __nv_bfloat16;
  static constexpr DType kDType = DType::kBf16;

  __device__ __forceinline__ static uint32_t pack2(float lo, float hi) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }

  __device__ __forceinline__ static float2 unpack2(uint32_t bits) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits));
  }

  __device__ __forceinline__ static void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4],
                                                     uint32_t b0, uint32_t b1) {
    mma_16x8x16_f32acc<kDType>(d, a, b0, b1);
  }
};

template <>
struct TraitsFor<DType::kBf16> {
  using type = Bf16Traits;
};

}  // namespace flashcore
