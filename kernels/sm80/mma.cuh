// The one tensor-core instruction the sm80-family mainloop uses, for either 16-bit dtype.
// Only the PTX type suffix differs; no BF16 header is needed to emit the bf16 form, so FP16
// translation units stay free of cuda_bf16.h.
#pragma once

#include <cstdint>

#include "kernels/flash_fwd_api.h"

namespace flashcore {

// D += A(16x16, row-major) * B(16x8, col-major), fp32 accumulate (mma.sync.m16n8k16).
template <DType kDType>
__device__ __forceinline__ void mma_16x8x16_f32acc(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                                   uint32_t b1) {
  if constexpr (kDType == DType::kFp16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

template <DType>
struct TraitsFor;  // specialised by each dtype header (dtype_fp16.cuh, dtype_bf16.cuh)

}  // namespace flashcore
