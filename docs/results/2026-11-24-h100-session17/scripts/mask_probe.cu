#include "kernels/common/online_softmax.cuh"
using namespace flashcore;
template <bool kMask>
__global__ void probe(float* io, const int* lohi, float scale) {
  float s[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) s[i] = io[threadIdx.x * 64 + i];
  OnlineSoftmax<16, 8> sm;
  KeyRange keys[2] = {{lohi[threadIdx.x * 4], lohi[threadIdx.x * 4 + 1]}, {lohi[threadIdx.x * 4 + 2], lohi[threadIdx.x * 4 + 3]}};
  float alpha[2];
  sm.template step<kMask>(s, scale, blockIdx.x * 128, keys, alpha);
#pragma unroll
  for (int i = 0; i < 64; ++i) io[threadIdx.x * 64 + i] = s[i];
  io[9999 + threadIdx.x] = alpha[0] + alpha[1] + sm.row_sum[0] + sm.row_sum[1] + sm.row_max[0] + sm.row_max[1];
}
template __global__ void probe<true>(float*, const int*, float);
template __global__ void probe<false>(float*, const int*, float);
