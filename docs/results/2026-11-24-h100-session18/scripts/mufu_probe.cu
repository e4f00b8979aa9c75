// MUFU.EX2 throughput probe: fp32 ex2.approx vs packed f16x2 / bf16x2 ex2.approx, 8 independent
// chains per thread; each step is ex2 then an add (kept in range).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void ex2_f32(float* out, int iters) {
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = -1e-3f * (threadIdx.x + j);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float y;
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(a[j]));
      a[j] = y - 1.0f;
    }
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void ex2_f16x2(float* out, int iters) {
  unsigned a[8];
  const __half2 one = __float2half2_rn(1.0f);
#pragma unroll
  for (int j = 0; j < 8; ++j) { __half2 h = __float2half2_rn(-1e-3f * (threadIdx.x + j)); a[j] = *reinterpret_cast<unsigned*>(&h); }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned y;
      asm volatile("ex2.approx.f16x2 %0, %1;" : "=r"(y) : "r"(a[j]));
      __half2 h = __hsub2(*reinterpret_cast<__half2*>(&y), one);
      a[j] = *reinterpret_cast<unsigned*>(&h);
    }
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) { __half2 h = *reinterpret_cast<__half2*>(&a[j]); s += __low2float(h) + __high2float(h); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void ex2_bf16x2(float* out, int iters) {
  unsigned a[8];
  const __nv_bfloat162 one = __float2bfloat162_rn(1.0f);
#pragma unroll
  for (int j = 0; j < 8; ++j) { __nv_bfloat162 h = __float2bfloat162_rn(-1e-3f * (threadIdx.x + j)); a[j] = *reinterpret_cast<unsigned*>(&h); }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      unsigned y;
      asm volatile("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(y) : "r"(a[j]));
      __nv_bfloat162 h = __hsub2(*reinterpret_cast<__nv_bfloat162*>(&y), one);
      a[j] = *reinterpret_cast<unsigned*>(&h);
    }
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) { __nv_bfloat162 h = *reinterpret_cast<__nv_bfloat162*>(&a[j]); s += __low2float(h) + __high2float(h); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
