#include "kernels/hopper/bwd_scores.cuh"
using namespace flashcore;
template <bool kMasked>
__global__ void probe(float* io, const float* lse, AttentionFeatures f, int sq, int sk, int key0, int query0, float scale) {
  float s[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) s[i] = io[threadIdx.x * 32 + i];
  SeqInfo seq; seq.seqlen_q = sq; seq.seqlen_k = sk; seq.row0_q = 0; seq.row0_k = 0;
  AttentionMask<kMasked> mask(seq, f);
  hopper::probs_from_scores<8, kMasked>(s, lse, scale, 0.f, 0.f, mask, true, key0 + threadIdx.x / 4, query0, threadIdx.x % 32);
#pragma unroll
  for (int i = 0; i < 32; ++i) io[threadIdx.x * 32 + i] = s[i];
}
template __global__ void probe<true>(float*, const float*, AttentionFeatures, int, int, int, int, float);
template __global__ void probe<false>(float*, const float*, AttentionFeatures, int, int, int, int, float);
