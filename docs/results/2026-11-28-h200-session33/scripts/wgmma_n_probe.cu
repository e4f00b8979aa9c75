// Session 33: does a wgmma m64nNk16 cost in proportion to N? Issue 15's narrow mainloops run
// P V at N = 80 (head dim 80 on the 96 kernel) and N = 208 (200 / 208 on the 256 kernel), and the
// d96 / d192 kernels run Q K^T key blocks of 80..112; their TFLOP/s fell short of the width ratio.
// This times back-to-back wgmmas of the repository's own wrappers (kernels/hopper/wgmma.cuh) on
// zeroed shared memory: every SM one CTA of two warpgroups (as the forward's two consumers), each
// issuing groups of 16 wgmmas on its own accumulator and waiting for each group; TFLOP/s from CUDA
// events over the whole grid. Two forms:
//   ss: A (64 x 16) and B (N x 16) K-major from shared memory (S = Q K^T with N keys);
//   rs: A from registers, B MN-major (16 keys x N columns: O += P V with N head-dim columns).
// (The N that wgmma.cuh / wgmma_wide.cuh wrap: ss without 208, rs without 32 and 208.)
// Build (CPU machine, from the repository root; the pinned nvcc is under the Bazel output base's
// external/_main~_repo_rules~cuda/nvidia/cu13, $N below):
//   $N/bin/nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I. -I$N/include -L$N/lib \
//     -cudart static -o wgmma_n_probe docs/results/2026-11-28-h200-session33/scripts/wgmma_n_probe.cu
#include <cstdio>
#include <cuda_runtime.h>

#include "kernels/hopper/smem_tile.cuh"
#include "kernels/hopper/tma_pipeline.cuh"
#include "kernels/hopper/wgmma.cuh"

using namespace flashcore;
using namespace flashcore::hopper;

constexpr int kWarpgroups = 2;
constexpr int kGroup = 16;                     // wgmmas per commit group

template <int kN, bool kRS>
__global__ void __launch_bounds__(128 * kWarpgroups) probe(int iters, float* sink) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = align_shared<1024>(smem_raw);
  for (int i = threadIdx.x; i < (8192 + 32768) / 4; i += blockDim.x) reinterpret_cast<uint32_t*>(smem)[i] = 0;
  __syncthreads();
  const void* tile_a = smem;
  const void* tile_b = smem + 8192;
  // (N = 208, the narrow P V of head dims 200 / 208, is not timed: in this loop ptxas serialized
  // its wgmmas (C7512) however the accumulator was declared; the forward kernels have no C7512.)
  float d[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) d[i] = 0.f;
  const uint32_t a[4] = {0u, 0u, 0u, 0u};
  for (int it = 0; it < iters; ++it) {
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < kGroup; ++j) {
      const int kk = j % 4;
      if constexpr (kRS) {
        wgmma_rs<kN, DType::kBf16>(d, a, v_desc<64>(tile_b, kk), 1);
      } else {
        wgmma_ss<kN, DType::kBf16>(d, kmajor_desc<64>(tile_a, 0, kk), kmajor_desc<256>(tile_b, 0, kk), 1);
      }
    }
    wgmma_commit();
    wgmma_wait<0>();
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) s += d[i];
  if (s != 0.f) sink[blockIdx.x] = s;  // never true (zero operands); keeps the loop alive
}

template <int kN, bool kRS>
void run(int sms, float* sink) {
  auto k = probe<kN, kRS>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024);  // one CTA an SM
  const int iters = 4000;
  k<<<sms, 128 * kWarpgroups, 160 * 1024>>>(100, sink);  // warm-up
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0);
    k<<<sms, 128 * kWarpgroups, 160 * 1024>>>(iters, sink);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, e0, e1);
    if (ms < best) best = ms;
  }
  const double flops = double(sms) * kWarpgroups * iters * kGroup * 2.0 * 64 * kN * 16;
  printf("%s N=%3d  %8.3f ms  %7.1f TFLOP/s  %s\n", kRS ? "rs" : "ss", kN, best, flops / best / 1e9,
         cudaGetErrorString(cudaGetLastError()));
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("%s, %d SMs, %d warpgroups a CTA, groups of %d wgmma, bf16\n", prop.name, sms, kWarpgroups, kGroup);
  float* sink;
  cudaMalloc(&sink, sms * sizeof(float));
  run<32, false>(sms, sink);  run<64, false>(sms, sink);  run<80, false>(sms, sink);  run<96, false>(sms, sink);
  run<112, false>(sms, sink); run<128, false>(sms, sink); run<192, false>(sms, sink); run<256, false>(sms, sink);
  run<64, true>(sms, sink);  run<80, true>(sms, sink);  run<96, true>(sms, sink);
  run<112, true>(sms, sink); run<128, true>(sms, sink); run<192, true>(sms, sink);
  run<256, true>(sms, sink);
  return 0;
}
