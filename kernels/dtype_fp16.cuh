// FP16 element traits. FP16 libraries may be compiled with the BF16-suppressing macros; this
// header includes nothing of BF16.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/flash_fwd_api.h"

namespace flashcore {

struct Fp16Traits {
  using Element = __half;
  static constexpr DType kDType = DType::kFp16;

  __device__ __forceinline__ static uint32_t pack2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }

  // D += A(16x16, row) * B(16x8, col), fp32 accumulate.
  __device__ __forceinline__ static void mma_16x8x16(float (&d)[4], const uint32_t (&a)[4],
                                                     uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

template <DType>
struct TraitsFor;
template <>
struct TraitsFor<DType::kFp16> {
  using type = Fp16Traits;
};

}  // namespace flashcore
