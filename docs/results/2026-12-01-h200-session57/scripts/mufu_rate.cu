// Session 57: the MUFU throughput of the exp2 / tanh forms a softmax step could use on sm_90a, per
// result (a bf16x2 / f16x2 op yields two). Each thread runs 8 independent chains of the op
// (x = op(x)) for `iters` steps; the host (mufu_rate.py) times the launch. Built here with
// `nvcc -arch=sm_90a -cubin`, loaded on the GPU machine through the driver API.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define CHAINS 8

__device__ __forceinline__ float ex2_f32(float x) { float y; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float tanh_f32(float x) { float y; asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ unsigned ex2_bf16x2(unsigned x) { unsigned y; asm volatile("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(y) : "r"(x)); return y; }
__device__ __forceinline__ unsigned tanh_bf16x2(unsigned x) { unsigned y; asm volatile("tanh.approx.bf16x2 %0, %1;" : "=r"(y) : "r"(x)); return y; }
__device__ __forceinline__ unsigned ex2_f16x2(unsigned x) { unsigned y; asm volatile("ex2.approx.f16x2 %0, %1;" : "=r"(y) : "r"(x)); return y; }

extern "C" __global__ void rate_ex2_f32(float* out, int iters) {
  float x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = -1.f - c * 0.01f - threadIdx.x * 1e-6f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = ex2_f32(x[c]);
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void rate_tanh_f32(float* out, int iters) {
  float x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = 0.5f + c * 0.01f + threadIdx.x * 1e-6f;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = tanh_f32(x[c]);
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
#define PACKED_KERNEL(name, op)                                                      \
  extern "C" __global__ void name(float* out, int iters) {                         \
    unsigned x[CHAINS];                                                            \
    _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) x[c] = 0xbf80bf00u + c + threadIdx.x; \
    for (int i = 0; i < iters; ++i) {                                              \
      _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) x[c] = op(x[c]);          \
    }                                                                              \
    unsigned s = 0;                                                                \
    _Pragma("unroll") for (int c = 0; c < CHAINS; ++c) s ^= x[c];                  \
    out[blockIdx.x * blockDim.x + threadIdx.x] = __uint_as_float(s);               \
  }
PACKED_KERNEL(rate_ex2_bf16x2, ex2_bf16x2)
PACKED_KERNEL(rate_tanh_bf16x2, tanh_bf16x2)
PACKED_KERNEL(rate_ex2_f16x2, ex2_f16x2)
